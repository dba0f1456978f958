/**
 * Error bodies as the running web sends them to a real client (issue 26, "Words and layout"): an error
 * about one field carries it as `field` (its JSON path) and names it in words, as the form's label does,
 * never by its JSON key; over-long input is refused with the limit and nothing is stored; a file too big
 * for an upload names the file and the limit it passed (the per-file limit or the free space left).
 */
import { randomBytes } from "node:crypto";
import { agents, apiKeys, buddies, files, scheduledTasks } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { useRunningServers } from "../../../../common/testing/running-servers";
import { BROWSER_UA, signedInUser, useRunningWebContext, webContext } from "../testing";

useRunningWebContext();
const MIB = 1024 * 1024;
const servers = useRunningServers({ web: { FILE_MAX_BYTES: String(2 * MIB), FILE_QUOTA_MB: "10" } });

/** POSTs JSON to the running web as a browser of a signed-in user would (or signed out, without a cookie). */
async function post(path: string, body: unknown, cookie?: string) {
  const res = await fetch(`${servers.web.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "user-agent": BROWSER_UA,
      ...(cookie ? { cookie } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function userWithAgent() {
  const signedIn = await signedInUser();
  const [agent] = await webContext()
    .db.insert(agents)
    .values({ id: `agt_${randomBytes(8).toString("hex")}`, userId: signedIn.user.id, name: "Scout" })
    .returning();
  return { user: signedIn.user, agent, cookie: signedIn.jar.header() };
}

/** The JSON keys the issue saw in messages; none may appear in a message about its field. */
const JSON_KEY = /\b(referralCode|cronSchedule|salaryMin|salaryMax|rpcUrl)\b|^Url\b|^url\b/;

describe("an error about one field names it as the form does, and carries it as `field`", () => {
  it("sign-up: a malformed and an unknown referral code", async () => {
    const email = () => `words-${randomBytes(4).toString("hex")}@example.com`;
    const malformed = await post("/api/register", {
      email: email(),
      password: "a long enough password",
      referralCode: "not a code!",
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({
      code: "invalid_request",
      field: "referralCode",
      error: "Referral code must be letters, digits and hyphens, at most 20 characters",
    });
    const unknown = await post("/api/register", {
      email: email(),
      password: "a long enough password",
      referralCode: "NOSUCHCODE",
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "invalid_referral_code", field: "referralCode" });
    expect(unknown.body.error).toMatch(/^Referral code /);
  });

  it("a scheduled task: the schedule is 'Schedule', its JSON path is `field`", async () => {
    const { agent, cookie } = await userWithAgent();
    const { status, body } = await post(
      "/api/scheduled-tasks",
      { name: "Digest", cronSchedule: "* * *", prompt: "Summarize.", agentId: agent.id },
      cookie,
    );
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_request", field: "cronSchedule" });
    expect(body.error).toMatch(/^Schedule must have 5 or 6 fields/);
    expect(body.error).not.toMatch(JSON_KEY);
    // An error of the whole body (an unknown field) is about no field of a form.
    const unknown = await post(
      "/api/scheduled-tasks",
      { name: "Digest", cronSchedule: "0 9 * * *", prompt: "Summarize.", agentId: agent.id, owner: "x" },
      cookie,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.field).toBeUndefined();
    expect(unknown.body.error).toContain("owner");
  });

  it("a job listing: 'Minimum salary', also when it is compared with the maximum", async () => {
    const { cookie } = await userWithAgent();
    const listing = {
      companyId: "cmp_none",
      title: "Engineer",
      description: "Build things.",
      salaryMin: "a lot",
      salaryMax: 100,
      roleType: "backend",
      seniority: "senior",
      contractType: "full-time",
      applyUrl: "https://jobs.example.org/1",
    };
    const notANumber = await post("/api/jobs/board", listing, cookie);
    expect(notANumber.status).toBe(400);
    expect(notANumber.body).toMatchObject({ field: "salaryMin", error: "Minimum salary must be a number" });
    const reversed = await post("/api/jobs/board", { ...listing, salaryMin: 200 }, cookie);
    expect(reversed.status).toBe(400);
    expect(reversed.body).toMatchObject({
      field: "salaryMin",
      error: "Minimum salary must not exceed the maximum salary",
    });
  });

  it("the RPC URL: 'RPC URL', never `rpcUrl`", async () => {
    const { cookie } = await userWithAgent();
    const { status, body } = await post("/api/l1/rpc-config", { rpcUrl: "http://rpc.provider.test" }, cookie);
    expect(status).toBe(400);
    expect(body).toEqual({ code: "invalid_rpc_url", field: "rpcUrl", error: "RPC URL must use https" });
  });
});

describe("over-long input is refused with the limit, and nothing is stored", () => {
  it("a task name of 201 characters, a buddy name of 31, an API key name of 65", async () => {
    const { user, agent, cookie } = await userWithAgent();
    const task = await post(
      "/api/scheduled-tasks",
      { name: "n".repeat(201), cronSchedule: "0 9 * * *", prompt: "Summarize.", agentId: agent.id },
      cookie,
    );
    expect(task).toEqual({
      status: 400,
      body: { code: "invalid_request", field: "name", error: "Name must be at most 200 characters" },
    });
    const buddy = await post("/api/buddies", { name: "b".repeat(31), type: "crab" }, cookie);
    expect(buddy).toEqual({
      status: 400,
      body: { code: "invalid_request", field: "name", error: "Name must be at most 30 characters" },
    });
    const key = await post("/api/keys", { name: "k".repeat(65) }, cookie);
    expect(key).toEqual({
      status: 400,
      body: { code: "invalid_request", field: "name", error: "Key name must be at most 64 characters" },
    });
    const db = webContext().db;
    expect(await db.select().from(scheduledTasks).where(eq(scheduledTasks.userId, user.id))).toEqual([]);
    expect(await db.select().from(buddies).where(eq(buddies.userId, user.id))).toEqual([]);
    expect(await db.select().from(apiKeys).where(eq(apiKeys.userId, user.id))).toEqual([]);
  });
});

describe("a file too big to upload names the file and the limit it passed", () => {
  async function upload(cookie: string, agentId: string, bytes: number, filename: string) {
    const form = new FormData();
    form.append("agentId", agentId);
    form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), filename);
    const res = await fetch(`${servers.web.url}/api/files`, {
      method: "POST",
      body: form,
      headers: { cookie },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it("bigger than the per-file limit (2 MB), with room to spare: the per-file limit", async () => {
    const { agent, cookie } = await userWithAgent();
    const { status, body } = await upload(cookie, agent.id, 3 * MIB, "Quarterly report.pdf");
    expect(status).toBe(413);
    expect(body).toMatchObject({
      code: "file_too_large",
      field: "file",
      filename: "Quarterly report.pdf",
      error: "“Quarterly report.pdf” is bigger than the per-file limit of 2 MB",
    });
  });

  it("within the per-file limit but bigger than the free space: the free space left", async () => {
    const { user, agent, cookie } = await userWithAgent();
    // 9.5 MB of the 10 MB are taken by a file already stored.
    await webContext()
      .db.insert(files)
      .values({
        id: `file_${randomBytes(8).toString("hex")}`,
        userId: user.id,
        agentId: agent.id,
        filename: "archive.zip",
        storagePath: `missing-${randomBytes(8).toString("hex")}`,
        size: 9.5 * MIB,
        mimeType: "application/zip",
      });
    const { status, body } = await upload(cookie, agent.id, 1 * MIB, "notes.pdf");
    expect(status).toBe(413);
    expect(body).toMatchObject({
      code: "storage_limit_exceeded",
      field: "file",
      filename: "notes.pdf",
      error: "“notes.pdf” is bigger than the free space left: 512 KB free of your 10 MB",
    });
  });
});
