/**
 * `POST /api/provision` against the REAL backend (in-process, loopback): the agent record is created once per
 * user and the provision job lands in `platform_jobs` through the backend's `POST /api/platform-jobs/provision`.
 */
import { signUserContext } from "@svc/common";
import { toJobJson } from "@svc/db/json";
import { agents, platformJobs, users } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST as PROVISION } from "@/app/api/provision/route";
import { loadWebConfig } from "../infra/config";
import { overrideWebContext } from "../infra/context";
import {
  call,
  signedInUser,
  TEST_SESSION_SECRET,
  type TestRequest,
  useWebTestContext,
  webContext,
} from "../infra/testing";
import { provisionAgent } from "./provision";
import { startTestBackend } from "./testing/backend";

const INTERNAL_API_KEY = "provision-internal-key-0123456789abcdef";
const HMAC_SECRET = "provision-hmac-secret-0123456789abcdef";

const backend = await startTestBackend({ INTERNAL_API_KEY, HMAC_SECRET });
afterAll(() => backend.close());
const { config } = useWebTestContext({ BACKEND_URL: backend.url, INTERNAL_API_KEY, HMAC_SECRET });

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];

function provision(jar: Jar | undefined, request: Omit<TestRequest, "jar"> = {}) {
  return call(PROVISION, { method: "POST", path: "/api/provision", json: {}, jar, ...request });
}
async function agentsOf(userId: string) {
  return webContext().db.select().from(agents).where(eq(agents.userId, userId));
}
async function jobsOf(userId: string) {
  return webContext().db.select().from(platformJobs).where(eq(platformJobs.userId, userId));
}
async function count(table: "agents" | "platform_jobs") {
  const result = await webContext().db.execute<{ n: number }>(
    sql`select count(*)::int as n from ${sql.raw(table)}`,
  );
  return result.rows[0].n;
}

describe("POST /api/provision", () => {
  it("creates the user's agent and enqueues its provision job through the backend: 202", async () => {
    const { user, jar } = await signedInUser("ada@example.com");
    const before = backend.exchanges.length;
    const res = await provision(jar);
    expect(res.status).toBe(202);
    const body = await res.json();

    const [agent] = await agentsOf(user.id);
    expect(agent).toMatchObject({
      id: expect.stringMatching(/^agt_[0-9a-z]{20}$/),
      userId: user.id,
      name: "ada's agent",
      plan: "solo",
      aiProvider: "openrouter",
      agentType: "creative",
      hostingProvider: "local",
      status: "pending",
      url: null,
      gatewayTokenEncrypted: null,
    });
    const [job] = await jobsOf(user.id);
    expect(job).toMatchObject({
      jobType: "provision_managed_runtime",
      lane: "deploy",
      status: "queued",
      priority: 100,
      attempts: 0,
      maxAttempts: 5,
      agentId: agent.id,
      payload: {
        userId: user.id,
        agentId: agent.id,
        plan: "solo",
        aiProvider: "openrouter",
        agentType: "creative",
        autoProvision: false,
      },
    });
    expect(body).toEqual({ success: true, queued: true, job: toJobJson(job), agentId: agent.id });

    // What the web sent: the internal key, the signed user context and the backend's provision body.
    const sent = backend.exchanges.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: "POST", path: "/api/platform-jobs/provision", status: 202 });
    expect(sent[0].headers.authorization).toBe(`Bearer ${INTERNAL_API_KEY}`);
    expect(sent[0].headers["x-user-id"]).toBe(user.id);
    expect(sent[0].headers["x-user-signature"]).toBe(
      signUserContext(HMAC_SECRET, { userId: user.id, userEmail: "ada@example.com", userRole: "user" }),
    );
    expect(JSON.parse(sent[0].body)).toEqual({
      userId: user.id,
      email: "ada@example.com",
      agentId: agent.id,
      plan: "solo",
      aiProvider: "openrouter",
      agentType: "creative",
      autoProvision: false,
      paymentsSubscriptionId: null,
    });
  });

  it("one agent per user: while the job is queued a second request returns the same job", async () => {
    const { user, jar } = await signedInUser();
    const first = await (await provision(jar)).json();
    const res = await provision(jar, { body: "", json: undefined });
    expect(res.status).toBe(202);
    const second = await res.json();
    expect(second.agentId).toBe(first.agentId);
    expect(second.job.id).toBe(first.job.id);
    expect(await agentsOf(user.id)).toHaveLength(1);
    expect(await jobsOf(user.id)).toHaveLength(1);
  });

  it("re-provisions the existing agent once its job has ended, with the body's choices and the user's plan", async () => {
    const { user, jar } = await signedInUser();
    const first = await (await provision(jar)).json();
    await webContext()
      .db.update(platformJobs)
      .set({ status: "failed" })
      .where(eq(platformJobs.id, first.job.id));
    await webContext()
      .db.update(users)
      .set({ plan: "pro", paymentsSubscriptionId: "sub_123" })
      .where(eq(users.id, user.id));

    const res = await provision(jar, {
      json: { name: "  Scout  ", aiProvider: "anthropic", agentType: "coding" },
    });
    expect(res.status).toBe(202);
    const second = await res.json();
    expect(second.agentId).toBe(first.agentId);
    expect(second.job.id).not.toBe(first.job.id);
    expect(second.job.payload).toEqual({
      userId: user.id,
      agentId: first.agentId,
      plan: "pro",
      aiProvider: "anthropic",
      agentType: "coding",
      autoProvision: false,
    });
    const rows = await agentsOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      name: "Scout",
      plan: "pro",
      aiProvider: "anthropic",
      agentType: "coding",
    });
    expect((await jobsOf(user.id)).map((j) => j.status).sort()).toEqual(["failed", "queued"]);
    expect(JSON.parse(backend.exchanges.at(-1)?.body ?? "{}").paymentsSubscriptionId).toBe("sub_123");
  });

  it("concurrent requests of one user create one agent and one job", async () => {
    const { user, jar } = await signedInUser();
    // Open the pool's connections first, so the requests really run side by side instead of one per new connection.
    await Promise.all(Array.from({ length: 8 }, () => webContext().db.execute(sql`select pg_sleep(0.05)`)));
    const answers = await Promise.all(Array.from({ length: 5 }, () => provision(jar)));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(new Set(bodies.map((b) => b.job.id)).size).toBe(1);
    expect(await agentsOf(user.id)).toHaveLength(1);
    expect(await jobsOf(user.id)).toHaveLength(1);
  });

  it("a body email is never used: the agent and the job belong to the session's user", async () => {
    const victim = await signedInUser();
    const { user, jar } = await signedInUser();
    const res = await provision(jar, { json: { email: victim.user.email } });
    expect(res.status).toBe(202);
    expect(await agentsOf(victim.user.id)).toHaveLength(0);
    expect(await agentsOf(user.id)).toHaveLength(1);
    expect(JSON.parse(backend.exchanges.at(-1)?.body ?? "{}")).toMatchObject({
      userId: user.id,
      email: user.email,
    });
  });

  it("the default name fits in 60 characters", async () => {
    const { user, jar } = await signedInUser();
    await webContext()
      .db.update(users)
      .set({ name: "n".repeat(70) })
      .where(eq(users.id, user.id));
    expect((await provision(jar)).status).toBe(202);
    expect((await agentsOf(user.id))[0].name).toBe("n".repeat(60));
  });

  it("401 without a session; 400 for bad input; neither touches the database nor the backend", async () => {
    const { jar } = await signedInUser();
    const agentsBefore = await count("agents");
    const jobsBefore = await count("platform_jobs");
    const exchangesBefore = backend.exchanges.length;

    const anonymous = await provision(undefined);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: "sign in first", code: "unauthorized" });

    const cases: Array<[Omit<TestRequest, "jar">, string]> = [
      [{ json: { name: "x".repeat(61) } }, "Agent name must be at most 60 characters"],
      [{ json: { name: "   " } }, "Agent name must not be empty"],
      [{ json: { name: 7 } }, "Agent name must be a string"],
      [{ json: { aiProvider: "Open Router" } }, "AI provider must be 1 to 40 lower-case letters"],
      [{ json: { agentType: "" } }, "Agent type must be 1 to 40 lower-case letters"],
      [{ json: { plan: "enterprise" } }, "unknown field: plan"],
      [{ json: undefined, body: "{nope", headers: { "content-type": "application/json" } }, "not valid JSON"],
      [
        { json: undefined, body: "[]", headers: { "content-type": "application/json" } },
        "must be a JSON object",
      ],
      [{ json: undefined, body: "name=x", headers: { "content-type": "text/plain" } }, "Content-Type"],
    ];
    for (const [request, message] of cases) {
      const res = await provision(jar, request);
      expect(res.status, message).toBe(400);
      expect((await res.json()).error).toContain(message);
    }
    expect(await count("agents")).toBe(agentsBefore);
    expect(await count("platform_jobs")).toBe(jobsBefore);
    expect(backend.exchanges.length).toBe(exchangesBefore);
  });
});

describe("a confirmed email (issue 24, item 9)", () => {
  it("403 email_not_verified while the account's email is not confirmed: no agent, no job, no backend call", async () => {
    const { user, jar } = await signedInUser(undefined, { emailVerified: false });
    const exchangesBefore = backend.exchanges.length;
    const res = await provision(jar);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      code: "email_not_verified",
      error:
        "confirm your email address first: open the link we mailed you, or send a new one from Settings (this server has no SMTP_URL: its mail is written to files in DATA_DIR/mail)",
    });
    expect(await agentsOf(user.id)).toHaveLength(0);
    expect(await jobsOf(user.id)).toHaveLength(0);
    expect(backend.exchanges.length).toBe(exchangesBefore);
    // Once confirmed, the same session provisions.
    await webContext().db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, user.id));
    expect((await provision(jar)).status).toBe(202);
  });

  it("REQUIRE_VERIFIED_EMAIL=false lets an unconfirmed account provision (local development)", async () => {
    overrideWebContext({
      config: loadWebConfig({
        DATABASE_URL: process.env.DATABASE_URL,
        SESSION_SECRET: TEST_SESSION_SECRET,
        BACKEND_URL: backend.url,
        INTERNAL_API_KEY,
        HMAC_SECRET,
        REQUIRE_VERIFIED_EMAIL: "false",
      }),
    });
    try {
      const { user, jar } = await signedInUser(undefined, { emailVerified: false });
      expect((await provision(jar)).status).toBe(202);
      expect(await agentsOf(user.id)).toHaveLength(1);
    } finally {
      overrideWebContext({ config });
    }
  });
});

describe("admin provisioning fallback (a session without a user id)", () => {
  // This web's sessions always name their account, so the fallback is exercised through the service with
  // a session that names only an email.
  const adminConfig = () =>
    loadWebConfig({
      DATABASE_URL: process.env.DATABASE_URL,
      SESSION_SECRET: TEST_SESSION_SECRET,
      LOG_LEVEL: "silent",
      BACKEND_URL: backend.url,
      INTERNAL_API_KEY,
      HMAC_SECRET,
      ADMIN_EMAILS: "Root@Example.com",
    });

  it("an ADMIN_EMAILS session email uses a synthetic session for that account; the body email is not used", async () => {
    const admin = await signedInUser("root@example.com");
    const other = await signedInUser();
    overrideWebContext({ config: adminConfig() });
    try {
      const ctx = webContext();
      const result = await provisionAgent(ctx, { id: null, email: "ROOT@example.com" }, {});
      expect(result).toMatchObject({ success: true, queued: true, agentId: expect.stringMatching(/^agt_/) });
      const [agent] = await agentsOf(admin.user.id);
      expect(agent.id).toBe(result.agentId);
      expect(result.job).toMatchObject({ userId: admin.user.id, agentId: agent.id, status: "queued" });
      expect(await agentsOf(other.user.id)).toHaveLength(0);

      // The route's body email never reaches the service: the schema drops it.
      const { provisionBody } = await import("./inputs");
      expect(provisionBody.parse({ email: other.user.email, name: "A" })).toEqual({ name: "A" });
    } finally {
      overrideWebContext({ config });
    }
  });

  it("a session without an id and with a non-admin email is 401; an admin email without an account is 404", async () => {
    const plain = await signedInUser();
    overrideWebContext({ config: adminConfig() });
    try {
      const ctx = webContext();
      await expect(provisionAgent(ctx, { id: null, email: plain.user.email }, {})).rejects.toMatchObject({
        status: 401,
        code: "unauthorized",
      });
      await expect(provisionAgent(ctx, { id: undefined, email: "" }, {})).rejects.toMatchObject({
        status: 401,
      });
      await webContext().db.delete(users).where(eq(users.email, "root@example.com"));
      await expect(provisionAgent(ctx, { id: null, email: "root@example.com" }, {})).rejects.toMatchObject({
        status: 404,
        code: "user_not_found",
      });
      expect(await agentsOf(plain.user.id)).toHaveLength(0);
    } finally {
      overrideWebContext({ config });
    }
  });
});
