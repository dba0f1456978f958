/**
 * Deleting an account through the running servers (issue 26 item 7): web/server.ts and the backend (its
 * hosting driver `railway`, against the loopback fake of Railway's API), a real client (`fetch`). The
 * account's agents are deprovisioned by the backend (their services removed from the platform), its files'
 * bytes removed, and its rows gone; what others see on the board stays as a deleted user's.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { newId, timestampedId } from "@svc/common";
import { type FakeRailway, startFakeRailway } from "@svc/common/testing";
import { useRunningServers } from "@svc/common/testing/running-servers";
import {
  agents,
  agentWallets,
  apiKeys,
  companies,
  jobClaims,
  jobListings,
  permissionRequests,
  platformJobs,
  scheduledTasks,
  sessions,
  users,
} from "@svc/db/schema";
import { eq, inArray } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { useRunningWebContext, webContext } from "../infra/testing";
import { accountWithPassword, freshIp, signedInBrowser, WebClient, waitForMail } from "./testing";

const railway: FakeRailway = await startFakeRailway({
  token: "railway-account-token",
  tokenType: "account",
  projectId: "prj-agents",
  environmentId: "env-production",
});
afterAll(() => railway.close());

const servers = useRunningServers({
  backend: {
    HOSTING_PROVIDER: "railway",
    HOSTING_API_URL: railway.url,
    HOSTING_API_KEY: "railway-account-token",
    HOSTING_PROJECT_ID: "prj-agents",
    HOSTING_ENVIRONMENT_ID: "env-production",
  },
  web: { TRUST_PROXY: "true" },
});
useRunningWebContext();
const url = () => servers.web.url;
const db = () => webContext().db;

/** The service name the platform gives an agent (backend/src/hosting/types.ts `agentServiceName`). */
const serviceName = (agentId: string) =>
  `agent-${agentId
    .replace(/^agt_/, "")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")}`.slice(0, 60);

/** An agent of the user's with a service on the (fake) platform, and one that was never deployed. */
async function agentsOf(userId: string) {
  const deployed = newId("agt");
  const serviceId = `svc-${deployed.slice(-8)}`;
  railway.services.set(serviceId, {
    id: serviceId,
    name: serviceName(deployed),
    image: "agent-platform-agent:2026.4.11",
    variables: {},
    domain: null,
    volumeMountPath: null,
    deployments: [],
  });
  const idle = newId("agt");
  await db()
    .insert(agents)
    .values([
      { id: deployed, userId, name: "Scout", runtimeServiceId: serviceId, status: "stopped" },
      { id: idle, userId, name: "Idle", status: "pending" },
    ]);
  return { deployed, serviceId, idle };
}

async function uploadFile(browser: WebClient, agentId: string): Promise<string> {
  const form = new FormData();
  form.set("agentId", agentId);
  form.set("file", new Blob(["notes of the agent"], { type: "text/plain" }), "notes.txt");
  const res = await fetch(`${url()}/api/files`, {
    method: "POST",
    body: form,
    headers: { cookie: browser.jar.header(), "x-forwarded-for": browser.ip },
  });
  expect(res.status).toBe(201);
  return (await res.json()).file.id;
}

/** A company and its listings of `advertiserId`: one active (public), one draft. */
async function listingsOf(advertiserId: string) {
  const now = new Date();
  const companyId = newId("cmp");
  await db()
    .insert(companies)
    .values({
      id: companyId,
      advertiserId,
      name: "Acme",
      slug: companyId.toLowerCase().replace("_", "-"),
      website: "https://acme.example",
    });
  const listing = (status: string) => ({
    id: newId("lst"),
    companyId,
    title: `${status} job`,
    description: "build things",
    salaryMin: 1,
    salaryMax: 2,
    roleType: "backend",
    seniority: "senior",
    contractType: "full-time",
    applyUrl: "https://acme.example/apply",
    status,
    publishedAt: status === "active" ? now : null,
  });
  const active = listing("active");
  const draft = listing("draft");
  await db().insert(jobListings).values([active, draft]);
  return { companyId, active: active.id, draft: draft.id };
}

const deleteAccount = (browser: WebClient, json: Record<string, unknown>) =>
  browser.fetch("/api/account", { method: "DELETE", json });

describe("DELETE /api/account", () => {
  it("removes the agents (services and rows), files, keys, sessions, tasks and wallets' keys; the board keeps a deleted user's records", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    const otherSession = await signedInBrowser(url, user.id);
    const { deployed, serviceId, idle } = await agentsOf(user.id);
    const bystander = await accountWithPassword(url, "password-1");
    const bystanderAgents = await agentsOf(bystander.user.id);

    const fileId = await uploadFile(browser, deployed);
    const stored = join(servers.dataDir, "files", fileId);
    expect(existsSync(stored)).toBe(true);
    expect((await browser.fetch("/api/keys", { json: { name: "ci", scopes: ["all"] } })).status).toBe(201);
    await db()
      .insert(scheduledTasks)
      .values({
        id: newId("tsk"),
        userId: user.id,
        agentId: deployed,
        name: "daily",
        cronSchedule: "0 9 * * *",
        prompt: "report",
      });
    await db()
      .insert(agentWallets)
      .values({
        userId: user.id,
        agentId: deployed,
        companyId: "acme",
        address: `0x${"ab".repeat(20)}`,
        encryptedPrivateKey: "sealed-key",
      });
    // A queued job (runs tomorrow, so the backend's worker leaves it alone) and a pending approval.
    await db()
      .insert(platformJobs)
      .values({
        id: timestampedId("job"),
        userId: user.id,
        agentId: deployed,
        lane: "runtime_exec",
        jobType: "gateway_chat_completion",
        runAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
        payload: { message: "private words" },
      });
    await db()
      .insert(permissionRequests)
      .values({
        id: timestampedId("perm"),
        agentId: deployed,
        userId: user.id,
        toolName: "bash",
        toolInput: { command: "echo hi" },
        tier: "dangerous",
        reason: "code execution",
        timestamp: Date.now(),
      });
    // On the board: the user's own listings, and a claim of the user's agent on someone else's.
    const own = await listingsOf(user.id);
    const theirs = await listingsOf(bystander.user.id);
    await db()
      .insert(jobClaims)
      .values({ id: newId("clm"), jobId: theirs.active, claimerAgentId: deployed, userId: user.id });

    // A wrong password deletes nothing.
    const wrong = await deleteAccount(browser, { password: "not-the-password" });
    expect([wrong.status, await wrong.json()]).toEqual([
      400,
      { error: "Password is not right", code: "wrong_password", field: "password" },
    ]);
    const missing = await deleteAccount(browser, {});
    expect([missing.status, (await missing.json()).code]).toEqual([400, "confirmation_required"]);
    expect(railway.services.has(serviceId)).toBe(true);
    expect(await browser.sessionUser()).toMatchObject({ id: user.id });

    const res = await deleteAccount(browser, { password: "password-1" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: true, agents: 2, files: 1 });
    expect(res.headers.getSetCookie()[0]).toMatch(/^svc-session=; Path=\/; Max-Age=0/);

    // The platform's service is gone (the bystander's stays), and with the account every row it owned.
    expect(railway.services.has(serviceId)).toBe(false);
    expect(railway.services.has(bystanderAgents.serviceId)).toBe(true);
    expect(railway.operations()).toContain("ServiceDelete");
    expect(existsSync(stored)).toBe(false);
    expect(await db().select().from(users).where(eq(users.id, user.id))).toEqual([]);
    for (const [table, column] of [
      [sessions, sessions.userId],
      [apiKeys, apiKeys.userId],
      [agents, agents.userId],
      [scheduledTasks, scheduledTasks.userId],
      [agentWallets, agentWallets.userId],
      [platformJobs, platformJobs.userId],
      [permissionRequests, permissionRequests.userId],
    ] as const) {
      expect(await db().select().from(table).where(eq(column, user.id))).toEqual([]);
    }
    expect(
      await db()
        .select()
        .from(agents)
        .where(inArray(agents.id, [deployed, idle])),
    ).toEqual([]);
    expect(await otherSession.sessionUser()).toBeNull();
    expect(await browser.sessionUser()).toBeNull();
    expect(await new WebClient(url, freshIp()).signIn(user.email, "password-1")).toBe(401);

    // The board: the public listing is closed and a deleted user's; the draft nobody else saw is gone.
    const closed = await (await new WebClient(url, freshIp()).fetch("/api/jobs/board?status=closed")).json();
    const listing = closed.jobs.find((j: { id: string }) => j.id === own.active);
    expect(listing).toMatchObject({ status: "closed", company: { id: own.companyId, advertiserId: null } });
    expect(await db().select().from(jobListings).where(eq(jobListings.id, own.draft))).toEqual([]);
    // The claim on the bystander's listing stays, as a deleted user's.
    const claims = await (await bystander.browser.fetch(`/api/jobs/${theirs.active}/claims`)).json();
    expect(claims.claims).toEqual([expect.objectContaining({ claimerAgentId: deployed, userId: null })]);

    const mail = await waitForMail(servers.dataDir, user.email, "account was deleted");
    expect(mail.text).toContain("agents, files, API keys, sessions, scheduled tasks and wallets' keys");
  });

  it("an account without a password is confirmed by typing its email", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    await db().update(users).set({ passwordHash: null }).where(eq(users.id, user.id));
    const wrong = await deleteAccount(browser, { confirm: "someone@else.example" });
    expect(await wrong.json()).toEqual({
      error: "Confirmation must be the account's email address, typed out",
      code: "confirmation_required",
      field: "confirm",
    });
    const res = await deleteAccount(browser, { confirm: ` ${user.email.toUpperCase()} ` });
    expect(await res.json()).toEqual({ deleted: true, agents: 0, files: 0 });
    expect(await db().select().from(users).where(eq(users.id, user.id))).toEqual([]);
  });

  it("409 while a deploy of the user's agent runs; nothing is removed", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    const { serviceId } = await agentsOf(user.id);
    await db()
      .insert(platformJobs)
      .values({
        id: timestampedId("job"),
        userId: user.id,
        lane: "deploy",
        jobType: "provision_managed_runtime",
        status: "running",
        lockedAt: new Date(),
        startedAt: new Date(),
        runAt: new Date(Date.now() + 24 * 60 * 60 * 1000),
      });
    const res = await deleteAccount(browser, { password: "password-1" });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe("deploy_in_progress");
    expect(railway.services.has(serviceId)).toBe(true);
    expect(await db().select().from(users).where(eq(users.id, user.id))).toHaveLength(1);
  });

  it("401 signed out; wrong passwords are limited like a password change", async () => {
    expect((await deleteAccount(new WebClient(url, freshIp()), { password: "x" })).status).toBe(401);
    const { browser } = await accountWithPassword(url, "password-1");
    for (let i = 0; i < 5; i++)
      expect((await deleteAccount(browser, { password: `guess-${i}` })).status).toBe(400);
    expect((await deleteAccount(browser, { password: "password-1" })).status).toBe(429);
  });
});
