/**
 * The per-agent runtime operations through the real backend app (real PostgreSQL), against a hosting
 * platform double whose agents are loopback HTTP servers.
 */
import { openGatewayToken, wrapperAdminPassword } from "@svc/common";
import { AGENT_POST_OPERATIONS } from "@svc/common/openapi/index";
import { startAgentImpostor } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { PLATFORM_DEFAULT_MODEL } from "../ai/budget";
import { loadBackendConfig } from "../config";
import { createHostingPlatform } from "../hosting";
import { agentEnvironment, HostingError } from "../hosting/types";
import type { PlatformSource } from "../runtime/platform";
import { FakePlatform } from "../runtime/testing/fake-platform";
import { ADMIN_EMAIL, readAgent, seedAgent } from "../runtime/testing/fixtures";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  headersFor,
  type TestUser,
  testApp,
  testDatabase,
} from "../testing";

const database = testDatabase();
const platforms: FakePlatform[] = [];
const RUNTIME_IMAGE = "registry.example.com/team/openclaw:2026.5.1";
/** The fake platform is a railway-like driver: it runs the agent image (OpenClaw with our wrapper). */
const AGENT_IMAGE = "registry.example.com/team/agent:2026.5.1";

afterEach(async () => {
  for (const platform of platforms.splice(0)) await platform.close();
});

function setup(
  env: Record<string, string> = {},
  options: { platform?: PlatformSource | null; hooks?: string[] } = {},
) {
  const fake = new FakePlatform();
  platforms.push(fake);
  const hooks = options.hooks;
  const app = testApp({
    env: {
      DATA_ENCRYPTION_KEY,
      ADMIN_EMAILS: ADMIN_EMAIL,
      RUNTIME_IMAGE,
      AGENT_IMAGE,
      AI_DEFAULT_MODEL: "openai/gpt-4o-mini",
      BACKEND_PUBLIC_URL: "http://backend.internal:4000",
      PROVISION_HEALTH_POLL_MS: "20",
      PROVISION_HEALTH_TIMEOUT_MS: "3000",
      ...env,
    },
    platform: options.platform === null ? undefined : (options.platform ?? fake),
    onOperatorAction: hooks ? (agentId) => hooks.push(agentId) : undefined,
  });
  return { app, fake };
}

function call(app: ReturnType<typeof setup>["app"], user: TestUser, method: "get" | "post", path: string) {
  return request(app)[method](path).set(headersFor(user));
}

const GET_OPS = ["state", "stats", "gateway-token", "health"] as const;
const POST_OPS = AGENT_POST_OPERATIONS;

describe("authentication and ownership", () => {
  it("401 without the internal key, 403 with a wrong one, 401 without a signed user context", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const path = `/api/agents/${agent.id}/state`;
    const none = await request(app).get(path);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe("unauthorized");
    const wrong = await request(app).get(path).set("authorization", "Bearer nope");
    expect(wrong.status).toBe(403);
    const unsigned = await request(app).get(path).set(headersFor("internal"));
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error).toBe("SIGNATURE_REQUIRED");
  });

  it("another user's agent is 404 `agent not found` on every operation, and nothing is called", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const stranger = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    const before = fake.calls.length;
    for (const op of GET_OPS) {
      const res = await call(app, stranger, "get", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body]).toEqual([
        op,
        404,
        { error: "agent_not_found", message: "agent not found" },
      ]);
    }
    for (const op of POST_OPS) {
      const res = await call(app, stranger, "post", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body]).toEqual([
        op,
        404,
        { error: "agent_not_found", message: "agent not found" },
      ]);
    }
    expect(fake.calls.length).toBe(before);
    expect(service?.agent.requests.length).toBe(0);
    const missing = await call(app, owner, "get", "/api/agents/agt_missing/state");
    expect(missing.status).toBe(404);
  });

  it("an administrator (role admin and ADMIN_EMAILS) may act on any agent; the email alone may not", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const admin = await createUser({ email: ADMIN_EMAIL });
    const { agent } = await seedAgent(fake, owner);
    const emailOnly = await call(app, admin, "post", `/api/agents/${agent.id}/restart`);
    expect(emailOnly.status).toBe(404);
    expect(fake.callsOf("restart")).toHaveLength(0);
    const res = await request(app).post(`/api/agents/${agent.id}/restart`).set(headersFor(admin, "admin"));
    expect(res.status).toBe(200);
    expect(res.body.agent.userId).toBe(owner.id);
    expect(fake.callsOf("restart")).toHaveLength(1);
  });
});

describe("503 and 500", () => {
  it("503 on every mutating operation while ENABLE_RUNTIME_CONTROLS is false; nothing is called", async () => {
    const { app, fake } = setup({ ENABLE_RUNTIME_CONTROLS: "false" });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const before = fake.calls.length;
    for (const op of POST_OPS) {
      const res = await call(app, owner, "post", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body]).toEqual([
        op,
        503,
        {
          error: "runtime_controls_disabled",
          message: "runtime controls are disabled (ENABLE_RUNTIME_CONTROLS=false)",
        },
      ]);
    }
    expect(fake.calls.length).toBe(before);
    // Observations keep working.
    expect((await call(app, owner, "get", `/api/agents/${agent.id}/state`)).status).toBe(200);
    expect((await call(app, owner, "get", `/api/agents/${agent.id}/health`)).body.status).toBe("running");
    expect((await call(app, owner, "get", `/api/agents/${agent.id}/gateway-token`)).status).toBe(200);
  });

  const platformOps = ["stats", ...POST_OPS.filter((op) => op !== "compat")];

  it("503 naming the hosting variables when no hosting platform is configured", async () => {
    const { app, fake } = setup({}, { platform: null });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    for (const op of platformOps) {
      const res = await call(app, owner, op === "stats" ? "get" : "post", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body.error]).toEqual([op, 503, "hosting_not_configured"]);
      for (const hint of [
        "HOSTING_API_KEY",
        "HOSTING_ENVIRONMENT_ID",
        "HOSTING_PROJECT_ID",
        "HOSTING_TOKEN_TYPE=project",
      ])
        expect(res.body.message).toContain(hint);
    }
  });

  it("503 from the railway driver without its credentials, naming what to set", async () => {
    const railway = createHostingPlatform(
      loadBackendConfig({
        DATABASE_URL: process.env.DATABASE_URL,
        HOSTING_PROVIDER: "railway",
        HOSTING_PROJECT_ID: "p1",
      }),
    );
    const { app, fake } = setup({}, { platform: railway });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    for (const op of platformOps) {
      const res = await call(app, owner, op === "stats" ? "get" : "post", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body]).toEqual([
        op,
        503,
        {
          error: "hosting_not_configured",
          message:
            "the Railway hosting platform is not configured: set HOSTING_API_KEY, HOSTING_ENVIRONMENT_ID " +
            "(set HOSTING_TOKEN_TYPE=project when HOSTING_API_KEY is a project token)",
        },
      ]);
    }
    expect(fake.calls).toEqual([]);
  });

  it("503 when the platform cannot be resolved (missing credentials), before any action", async () => {
    const resolver = () => {
      throw new HostingError(
        "not_configured",
        "railway: HOSTING_API_KEY, HOSTING_ENVIRONMENT_ID and HOSTING_PROJECT_ID are required",
      );
    };
    const { app, fake } = setup({}, { platform: resolver });
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    for (const op of platformOps) {
      const res = await call(app, owner, op === "stats" ? "get" : "post", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body.error]).toEqual([op, 503, "hosting_not_configured"]);
      expect(res.body.message).toContain("HOSTING_API_KEY");
    }
    // Reset memory resolves the platform first: no memory was deleted.
    expect(service?.agent.memories).toBe(3);
  });

  it("503 when the platform answers not_configured (the driver's own check)", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    fake.notConfigured = true;
    for (const op of platformOps) {
      const res = await call(app, owner, op === "stats" ? "get" : "post", `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body.error]).toEqual([op, 503, "hosting_not_configured"]);
      expect(res.body.message).toContain("HOSTING_TOKEN_TYPE=project");
    }
  });

  it("500 action_failed when the action itself fails", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const failing: Array<[string, "get" | "post", string]> = [
      ["stats", "get", "stats"],
      ["start", "post", "deploy"],
      ["stop", "post", "stop"],
      ["restart", "post", "restart"],
      ["repair", "post", "setEnv"],
      ["reset-memory", "post", "restart"],
      ["update", "post", "setImage"],
      ["heal-token", "post", "setEnv"],
      ["maintenance", "post", "restart"],
    ];
    for (const [op, method, platformOp] of failing) {
      fake.failures.clear();
      fake.failures.set(platformOp, new HostingError("platform", `${platformOp} refused: quota exceeded`));
      const res = await call(app, owner, method, `/api/agents/${agent.id}/${op}`);
      expect([op, res.status, res.body.error]).toEqual([op, 500, "action_failed"]);
      expect(res.body.message).toContain(`${platformOp} refused: quota exceeded`);
    }
    fake.failures.clear();
    expect((await readAgent(agent.id)).status).not.toBe("stopped");
  });

  it("500 when the agent refuses the compatibility check's config call", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    if (!service) throw new Error("no service");
    // Its own wrapper (it proves it holds the agent's password) with an admin API that refuses it.
    service.agent.adminPassword = service.agent.env.WRAPPER_ADMIN_PASSWORD as string;
    service.agent.env.WRAPPER_ADMIN_PASSWORD = "another-password";
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/compat`);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: "action_failed",
      message: "compatibility check failed: GET /api/config: the agent answered HTTP 401: unauthorized",
    });
  });

  it("500, and no password sent, when the wrapper at the agent's URL does not prove it is the agent's", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    if (!service) throw new Error("no service");
    const impostor = await startAgentImpostor();
    try {
      await database.db.update(agents).set({ url: impostor.url }).where(eq(agents.id, agent.id));
      const res = await call(app, owner, "post", `/api/agents/${agent.id}/compat`);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: "action_failed",
        message: `compatibility check failed: GET /api/config: the agent at 127.0.0.1:${impostor.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`,
      });
      const reset = await call(app, owner, "post", `/api/agents/${agent.id}/reset-memory`);
      expect(reset.status).toBe(500);
      expect(reset.body.message).toContain("did not prove it is the agent meant");
      expect(impostor.credentials).toEqual([]);
      expect(service.agent.memories).toBe(3);
    } finally {
      await impostor.close();
    }
  });

  it("503 service_unresolved when the agent's service does not exist on the platform", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner, {
      service: false,
      url: "http://127.0.0.1:9",
    });
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/restart`);
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("service_unresolved");
    expect(res.body.message).toContain("provision the agent first");
  });
});

describe("observations", () => {
  it("GET state: the stored fields and the shared probe of the stored URL", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const res = await call(app, owner, "get", `/api/agents/${agent.id}/state`);
    expect(res.status).toBe(200);
    expect(res.body.agent).toEqual({
      id: agent.id,
      userId: owner.id,
      name: "Runner",
      status: "running",
      url: agent.url,
      runtimeServiceId: agent.runtimeServiceId,
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      version: "2026.4.11",
      plan: "solo",
      aiProvider: "openrouter",
      agentType: "creative",
      hostingProvider: "local",
      hasGatewayToken: true,
      createdAt: agent.createdAt.toISOString(),
      updatedAt: agent.updatedAt.toISOString(),
    });
    expect(res.body.probe).toMatchObject({
      status: "running",
      statusReason: "/api/status: running true",
      checks: { healthz: { ok: true, status: 200 }, readyz: { ok: true }, apiStatus: { ok: true } },
    });
    expect(JSON.stringify(res.body)).not.toContain(agent.gatewayTokenEncrypted as string);
  });

  it("GET state without a deployed agent: probe null", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner, { service: false, url: null });
    const res = await call(app, owner, "get", `/api/agents/${agent.id}/state`);
    expect(res.status).toBe(200);
    expect(res.body.probe).toBeNull();
    expect(res.body.agent.url).toBeNull();
  });

  it("GET stats: platform figures, null where the driver has none, telemetry flags all false", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const res = await call(app, owner, "get", `/api/agents/${agent.id}/stats`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      cpuPercent: 12.5,
      memoryBytes: 104_857_600,
      memoryLimitBytes: null,
      telemetry: { restartCounts: false, lastExit: false, perMessage: false },
    });
    expect(fake.callsOf("stats")).toEqual([{ op: "stats", id: agent.runtimeServiceId }]);
  });

  it("GET gateway-token: the stored token; 404 when the agent has none", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, token } = await seedAgent(fake, owner);
    const res = await call(app, owner, "get", `/api/agents/${agent.id}/gateway-token`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token });
    const bare = await seedAgent(fake, owner, { token: null });
    const none = await call(app, owner, "get", `/api/agents/${bare.agent.id}/gateway-token`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: "no_gateway_token", message: "the agent has no gateway token" });
  });

  it("GET health: the probe with statusReason; unreachable; no deployed agent → 200 no_agent", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    const res = await call(app, owner, "get", `/api/agents/${agent.id}/health`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      agentId: agent.id,
      agentName: "Runner",
      url: agent.url,
      status: "running",
      statusReason: "/api/status: running true",
      checkedAt: expect.any(String),
    });
    await service?.agent.close();
    const down = await call(app, owner, "get", `/api/agents/${agent.id}/health`);
    expect(down.body.status).toBe("unreachable");
    expect(down.body.checks.healthz.error).toBe("connection refused");

    // Stopped by the platform (POST stop): nothing answers, and that is the agent's state, not a fault.
    await database.db.update(agents).set({ status: "stopped" }).where(eq(agents.id, agent.id));
    const stopped = await call(app, owner, "get", `/api/agents/${agent.id}/health`);
    expect(stopped.body).toMatchObject({ status: "stopped", statusReason: "the agent's service is stopped" });

    const undeployed = await seedAgent(fake, owner, { service: false, url: null });
    const none = await call(app, owner, "get", `/api/agents/${undeployed.agent.id}/health`);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ status: "no_agent" });
  });
});

describe("lifecycle", () => {
  it("POST start deploys, stores url and status, and tells the watchdog", async () => {
    const hooks: string[] = [];
    const { app, fake } = setup({}, { hooks });
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    if (service) service.agent.running = false;
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/start`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      action: "start",
      agent: { id: agent.id, status: "running", url: agent.url },
    });
    expect(fake.callsOf("deploy")).toEqual([{ op: "deploy", id: agent.runtimeServiceId }]);
    expect(service?.agent.running).toBe(true);
    expect(hooks).toEqual([agent.id]);
  });

  it("POST stop suspends the service and stores status stopped", async () => {
    const hooks: string[] = [];
    const { app, fake } = setup({}, { hooks });
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/stop`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, action: "stop", agent: { status: "stopped" } });
    expect(service?.agent.running).toBe(false);
    expect((await readAgent(agent.id)).status).toBe("stopped");
    expect(hooks).toEqual([]);
  });

  it("POST restart restarts through the platform", async () => {
    const hooks: string[] = [];
    const { app, fake } = setup({}, { hooks });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/restart`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, action: "restart" });
    expect(fake.callsOf("restart")).toEqual([{ op: "restart", id: agent.runtimeServiceId }]);
    expect(hooks).toEqual([agent.id]);
  });

  it("resolves the service by name when no id is persisted, and persists the id it found", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner, { persistServiceId: false });
    expect(agent.runtimeServiceId).toBeNull();
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/restart`);
    expect(res.status).toBe(200);
    expect(fake.callsOf("find")[0]).toEqual({ op: "find", id: undefined, name: service?.service.name });
    expect((await readAgent(agent.id)).runtimeServiceId).toBe(service?.service.id);
    await call(app, owner, "post", `/api/agents/${agent.id}/restart`);
    expect(fake.callsOf("find")[1]).toMatchObject({ id: service?.service.id });
  });

  it("POST repair rewrites the whole environment with the stored token, then restarts", async () => {
    const hooks: string[] = [];
    const { app, fake } = setup({}, { hooks });
    const owner = await createUser();
    const { agent, token, service } = await seedAgent(fake, owner);
    if (!service || !token) throw new Error("seed");
    service.agent.env = { OPENCLAW_GATEWAY_TOKEN: "stale", LEFTOVER: "x" };
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/repair`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, action: "repair", tokenGenerated: false });
    const expected = agentEnvironment({
      gatewayToken: token,
      adminPassword: wrapperAdminPassword(DATA_ENCRYPTION_KEY, agent.id, token),
      aiProvider: "openrouter",
      model: PLATFORM_DEFAULT_MODEL,
      agentType: "creative",
      plan: "solo",
      agentId: agent.id,
      backendUrl: "http://backend.internal:4000",
    });
    expect(service.agent.env).toEqual(expected);
    expect(fake.calls.map((c) => c.op)).toEqual(["find", "setEnv", "deploy"]);
    expect(hooks).toEqual([agent.id]);
  });

  it("POST repair generates, stores and sends a 64-hex token when the agent has none", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner, { token: null });
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/repair`);
    expect(res.status).toBe(200);
    expect(res.body.tokenGenerated).toBe(true);
    const stored = await readAgent(agent.id);
    const token = openGatewayToken(DATA_ENCRYPTION_KEY, stored.gatewayTokenEncrypted as string);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(service?.agent.env.OPENCLAW_GATEWAY_TOKEN).toBe(token);
    expect(service?.agent.env.WRAPPER_ADMIN_PASSWORD).toBe(
      wrapperAdminPassword(DATA_ENCRYPTION_KEY, agent.id, token),
    );
    expect(service?.agent.env.WRAPPER_ADMIN_PASSWORD).not.toBe(token);
    const again = await call(app, owner, "get", `/api/agents/${agent.id}/gateway-token`);
    expect(again.body).toEqual({ token });
  });

  it("POST reset-memory deletes the runtime's memories with the agent's token, then restarts", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, token, service } = await seedAgent(fake, owner);
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/reset-memory`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, action: "reset-memory", deleted: 3 });
    expect(service?.agent.memories).toBe(0);
    const reset = service?.agent.requests.find((r) => r.path === "/api/memory/reset");
    expect(reset?.headers.authorization).toBe(`Bearer ${token}`);
    expect(fake.callsOf("restart")).toHaveLength(1);
  });

  it("POST reset-memory: 409 without a gateway token or a deployed agent", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const bare = await seedAgent(fake, owner, { token: null });
    const noToken = await call(app, owner, "post", `/api/agents/${bare.agent.id}/reset-memory`);
    expect(noToken.status).toBe(409);
    expect(noToken.body.error).toBe("no_gateway_token");
    const undeployed = await seedAgent(fake, owner, { service: false, url: null });
    const noUrl = await call(app, owner, "post", `/api/agents/${undeployed.agent.id}/reset-memory`);
    expect(noUrl.status).toBe(409);
    expect(noUrl.body.error).toBe("agent_not_deployed");
  });

  it("POST update sets the platform's default agent image and redeploys", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/update`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      action: "update",
      agent: { image: AGENT_IMAGE, version: "2026.5.1" },
    });
    expect(fake.calls.map((c) => c.op)).toEqual(["find", "setImage", "deploy"]);
    expect(fake.callsOf("setImage")[0]).toEqual({
      op: "setImage",
      id: agent.runtimeServiceId,
      image: AGENT_IMAGE,
    });
  });

  it("POST maintenance: restart by default; factory-reset pins 2026.4.11 of the same repository", async () => {
    const { app, fake } = setup({ AGENT_IMAGE: "registry.example.com/team/agent:latest" });
    const owner = await createUser();
    const { agent, token, service } = await seedAgent(fake, owner);
    const plain = await call(app, owner, "post", `/api/agents/${agent.id}/maintenance`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ ok: true, action: "restart" });
    expect(fake.callsOf("restart")).toHaveLength(1);

    const reset = await call(app, owner, "post", `/api/agents/${agent.id}/maintenance`).send({
      action: "factory-reset",
    });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({
      ok: true,
      action: "factory-reset",
      agent: { image: "registry.example.com/team/agent:2026.4.11", version: "2026.4.11" },
    });
    expect(fake.callsOf("setImage")[0].image).toBe("registry.example.com/team/agent:2026.4.11");
    expect(service?.agent.env.OPENCLAW_GATEWAY_TOKEN).toBe(token);
    expect(fake.calls.slice(-4).map((c) => c.op)).toEqual(["find", "setImage", "setEnv", "deploy"]);

    const bad = await call(app, owner, "post", `/api/agents/${agent.id}/maintenance`).send({
      action: "nuke",
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: "invalid_request",
      message: "action must be restart or factory-reset",
    });
  });
});

describe("compatibility check and token heal", () => {
  it("applies the plugin migration and removes the legacy keys once; then reports nothing", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner);
    if (!service) throw new Error("seed");
    service.agent.config = {
      plugins: ["memory", { id: "browser", enabled: false, config: { headless: true } }],
      gateway: { auth: "[redacted]", pairing: { scopes: ["operator.read"] } },
      aiProvider: "openrouter",
    };
    const first = await call(app, owner, "post", `/api/agents/${agent.id}/compat`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ applied: ["plugin-config-migration", "legacy-platform-keys"] });
    expect(service.agent.config).toEqual({
      plugins: {
        entries: { memory: { enabled: true }, browser: { enabled: false, config: { headless: true } } },
      },
      gateway: { auth: "[redacted]" },
    });
    const second = await call(app, owner, "post", `/api/agents/${agent.id}/compat`);
    expect(second.body).toEqual({ applied: [] });
    expect(
      service.agent.requests.filter((r) => r.method === "POST" && r.path === "/api/config"),
    ).toHaveLength(1);
    expect(fake.callsOf("restart")).toHaveLength(0);
  });

  it("generates, stores and sets a token when the agent has none", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner, { token: null });
    if (!service) throw new Error("seed");
    service.agent.config = {
      plugins: { entries: {} },
      gateway: { auth: { mode: "token" } },
    };
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/compat`);
    expect(res.body).toEqual({ applied: ["gateway-token"] });
    const stored = await readAgent(agent.id);
    const token = openGatewayToken(DATA_ENCRYPTION_KEY, stored.gatewayTokenEncrypted as string);
    expect(service.agent.env.OPENCLAW_GATEWAY_TOKEN).toBe(token);
    expect(fake.callsOf("deploy")).toHaveLength(1);
    expect((await call(app, owner, "post", `/api/agents/${agent.id}/compat`)).body).toEqual({ applied: [] });
  });

  it("a revoked token (the runtime still guards its admin API with the old one): the new token first, then the configuration", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const { agent, service } = await seedAgent(fake, owner, { token: "0d".repeat(32) });
    if (!service) throw new Error("seed");
    service.agent.config = { plugins: { entries: {} }, gateway: { pairing: { scopes: [] } } };
    await database.db.update(agents).set({ gatewayTokenEncrypted: null }).where(eq(agents.id, agent.id));
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/compat`);
    expect(res.status).toBe(200);
    expect(res.body.applied).toContain("gateway-token");
    expect(res.body.applied.length).toBeGreaterThan(1);
    const token = openGatewayToken(
      DATA_ENCRYPTION_KEY,
      (await readAgent(agent.id)).gatewayTokenEncrypted as string,
    );
    expect(token).not.toBe("0d".repeat(32));
    const adminPassword = wrapperAdminPassword(DATA_ENCRYPTION_KEY, agent.id, token);
    expect(service.agent.env.WRAPPER_ADMIN_PASSWORD).toBe(adminPassword);
    // The fixed configuration was written with the admin password of the new token, after the restart.
    const writes = service.agent.requests.filter((r) => r.method === "POST" && r.path === "/api/config");
    expect(writes.map((r) => r.headers.authorization)).toEqual([`Bearer ${adminPassword}`]);
  });

  it("POST heal-token regenerates the token, sets it, restarts and checks health", async () => {
    const hooks: string[] = [];
    const { app, fake } = setup({}, { hooks });
    const owner = await createUser();
    const { agent, token, service } = await seedAgent(fake, owner);
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/heal-token`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.health).toMatchObject({ status: "running" });
    const stored = await readAgent(agent.id);
    const healed = openGatewayToken(DATA_ENCRYPTION_KEY, stored.gatewayTokenEncrypted as string);
    expect(healed).toMatch(/^[0-9a-f]{64}$/);
    expect(healed).not.toBe(token);
    expect(service?.agent.env.OPENCLAW_GATEWAY_TOKEN).toBe(healed);
    expect(fake.calls.map((c) => c.op)).toEqual(["find", "setEnv", "deploy"]);
    expect(hooks).toEqual([agent.id]);
  });

  it("POST heal-token reports ok false when the agent stays unhealthy", async () => {
    const { app, fake } = setup({ PROVISION_HEALTH_TIMEOUT_MS: "100", PROVISION_HEALTH_POLL_MS: "20" });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    fake.unhealthyAgents = true;
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/heal-token`);
    expect(res.status).toBe(200);
    expect(res.body.ok).toBe(false);
    expect(res.body.health.status).toBe("unreachable");
    expect((await readAgent(agent.id)).status).toBe("degraded");
  });
});

describe("deprovision (account deletion)", () => {
  const agentRow = async (id: string) => database.db.select().from(agents).where(eq(agents.id, id));

  it("removes the agent's service from the platform, then its row; runtime controls do not hold it back", async () => {
    const { app, fake } = setup({ ENABLE_RUNTIME_CONTROLS: "false" });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/deprovision`);
    expect([res.status, res.body]).toEqual([
      200,
      { ok: true, action: "deprovision", agentId: agent.id, serviceRemoved: true },
    ]);
    expect(fake.callsOf("remove")).toEqual([{ op: "remove", id: agent.runtimeServiceId }]);
    expect(fake.services.has(agent.runtimeServiceId as string)).toBe(false);
    expect(await agentRow(agent.id)).toEqual([]);
  });

  it("an agent whose service is already gone, or that was never deployed, loses its row only", async () => {
    const { app, fake } = setup({}, { platform: null });
    const owner = await createUser();
    const { agent } = await seedAgent(fake, owner, { service: false, url: null });
    const res = await call(app, owner, "post", `/api/agents/${agent.id}/deprovision`);
    expect(res.body).toMatchObject({ ok: true, serviceRemoved: false });
    expect(await agentRow(agent.id)).toEqual([]);

    const withPlatform = setup();
    const { agent: gone } = await seedAgent(withPlatform.fake, owner, { service: false });
    const again = await call(withPlatform.app, owner, "post", `/api/agents/${gone.id}/deprovision`);
    expect(again.body).toMatchObject({ ok: true, serviceRemoved: false });
    expect(withPlatform.fake.callsOf("remove")).toEqual([]);
    expect(await agentRow(gone.id)).toEqual([]);
  });

  it("a deployed agent is kept when the platform is not configured (503) or fails to remove it (500)", async () => {
    const unconfigured = setup({}, { platform: null });
    const owner = await createUser();
    const { agent } = await seedAgent(unconfigured.fake, owner);
    const res = await call(unconfigured.app, owner, "post", `/api/agents/${agent.id}/deprovision`);
    expect([res.status, res.body.error]).toEqual([503, "hosting_not_configured"]);
    expect(await agentRow(agent.id)).toHaveLength(1);

    const failing = setup();
    const { agent: stuck } = await seedAgent(failing.fake, owner);
    failing.fake.failures.set("remove", new HostingError("platform", "the platform refused"));
    const refused = await call(failing.app, owner, "post", `/api/agents/${stuck.id}/deprovision`);
    expect(refused.status).toBe(500);
    expect(await agentRow(stuck.id)).toHaveLength(1);
  });

  it("another user's agent is 404 and stays", async () => {
    const { app, fake } = setup();
    const owner = await createUser();
    const stranger = await createUser();
    const { agent } = await seedAgent(fake, owner);
    const res = await call(app, stranger, "post", `/api/agents/${agent.id}/deprovision`);
    expect(res.status).toBe(404);
    expect(fake.callsOf("remove")).toEqual([]);
    expect(await agentRow(agent.id)).toHaveLength(1);
  });
});
