/**
 * `/api/runtime/*` against the REAL backend (in-process, loopback, seen through a recording relay): every
 * operation reaches the backend for the signed-in user's newest agent and answers with the backend's status
 * and body as they are. The agent's URL is a loopback stand-in for its wrapper. The backend has no hosting
 * platform, so operations that need one answer its 503; the compatibility check works end to end.
 */
import { randomBytes } from "node:crypto";
import { sealGatewayToken, signUserContext, wrapperAdminPassword } from "@svc/common";
import { answerAgentIdentity, sendJson, startFakeUpstream } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST as COMPAT } from "@/app/api/runtime/compat/route";
import { GET as CONTROLS } from "@/app/api/runtime/controls/route";
import { GET as GATEWAY_TOKEN_ROUTE } from "@/app/api/runtime/gateway-token/route";
import { POST as HEAL_TOKEN } from "@/app/api/runtime/heal-token/route";
import { GET as HEALTH } from "@/app/api/runtime/health/route";
import { GET as LOGS } from "@/app/api/runtime/logs/route";
import { POST as MAINTENANCE } from "@/app/api/runtime/maintenance/route";
import { POST as REPAIR } from "@/app/api/runtime/repair/route";
import { POST as RESET_MEMORY } from "@/app/api/runtime/reset-memory/route";
import { POST as RESTART } from "@/app/api/runtime/restart/route";
import { POST as START } from "@/app/api/runtime/start/route";
import { GET as STATE } from "@/app/api/runtime/state/route";
import { GET as STATS } from "@/app/api/runtime/stats/route";
import { POST as STOP } from "@/app/api/runtime/stop/route";
import { POST as UPDATE } from "@/app/api/runtime/update/route";
import { GET as RUNTIME_VERSION_WEB } from "@/app/api/runtime/version/route";
import { GET as RUNTIME_VERSION } from "@/app/api/runtime-version/route";
import { loadWebConfig } from "../infra/config";
import { overrideWebContext } from "../infra/context";
import { call, signedInUser, TEST_SESSION_SECRET, useWebTestContext, webContext } from "../infra/testing";
import { RUNTIME_OPERATIONS, type RuntimeOperation } from "./operations";
import { startTestBackend } from "./testing/backend";

const INTERNAL_API_KEY = "ops-internal-key-0123456789abcdef";
const HMAC_SECRET = "ops-hmac-secret-0123456789abcdef";
const DATA_ENCRYPTION_KEY = "5eed".repeat(16);
const GATEWAY_TOKEN = randomBytes(32).toString("hex");

// The agent's wrapper: status, health probes and the admin config API behind each agent's admin password
// (derived by the platform from its gateway token; the token itself is not one).
let wrapperConfig: Record<string, unknown> = { plugins: ["memory"] };
const adminPasswords = new Set<string>();
/** The newest agent's: the fake wrapper proves it is that agent's (the platform asks before it sends one). */
let provenPassword = "";
const configAuthorizations: string[] = [];
const wrapper = await startFakeUpstream((req, res, body) => {
  if (answerAgentIdentity(req, res, provenPassword)) return;
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/healthz") return sendJson(res, 200, { ok: true });
  if (path === "/readyz") return sendJson(res, 200, { ready: true });
  if (path === "/api/status") {
    return sendJson(res, 200, { state: "running", running: true, configured: true, uptime: 12 });
  }
  if (path === "/api/config") {
    configAuthorizations.push(req.headers.authorization ?? "");
    const password = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
    if (!adminPasswords.has(password)) return sendJson(res, 401, { ok: false });
    if (req.method === "POST") {
      wrapperConfig = JSON.parse(body.toString("utf8"));
      return sendJson(res, 200, { ok: true, message: "saved" });
    }
    return sendJson(res, 200, { ok: true, config: wrapperConfig });
  }
  sendJson(res, 404, { ok: false, error: "not found" });
});

const backend = await startTestBackend({
  INTERNAL_API_KEY,
  HMAC_SECRET,
  DATA_ENCRYPTION_KEY,
  RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
});
const webEnv = {
  BACKEND_URL: backend.url,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  DATA_ENCRYPTION_KEY,
  RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:2026.9.9",
};
const { config } = useWebTestContext(webEnv);
afterAll(async () => {
  await backend.close();
  await wrapper.close();
});

const HANDLERS: Record<RuntimeOperation, (request: Request) => Promise<Response>> = {
  state: STATE,
  stats: STATS,
  "gateway-token": GATEWAY_TOKEN_ROUTE,
  health: HEALTH,
  logs: LOGS,
  start: START,
  stop: STOP,
  restart: RESTART,
  repair: REPAIR,
  "reset-memory": RESET_MEMORY,
  update: UPDATE,
  compat: COMPAT,
  "heal-token": HEAL_TOKEN,
  maintenance: MAINTENANCE,
};
const OPERATIONS = Object.keys(RUNTIME_OPERATIONS) as RuntimeOperation[];
const LIFECYCLE = OPERATIONS.filter((op) => RUNTIME_OPERATIONS[op].lifecycle);

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];

function operate(op: RuntimeOperation, jar: Jar | undefined, json?: unknown) {
  const { method } = RUNTIME_OPERATIONS[op];
  return call(HANDLERS[op], { method, path: `/api/runtime/${op}`, jar, json });
}

async function addAgent(userId: string, name = "Runner") {
  const [agent] = await webContext()
    .db.insert(agents)
    .values({
      id: `agt_${randomBytes(8).toString("hex")}`,
      userId,
      name,
      url: wrapper.url,
      gatewayTokenEncrypted: sealGatewayToken(DATA_ENCRYPTION_KEY, GATEWAY_TOKEN),
      status: "running",
    })
    .returning();
  provenPassword = wrapperAdminPassword(DATA_ENCRYPTION_KEY, agent.id, GATEWAY_TOKEN);
  adminPasswords.add(provenPassword);
  return agent;
}

async function userWithAgent() {
  const signedIn = await signedInUser();
  return { ...signedIn, agent: await addAgent(signedIn.user.id) };
}

/** Calls `op` and checks the web answered exactly what the backend answered to exactly one relayed call. */
async function forwarded(op: RuntimeOperation, jar: Jar, json?: unknown) {
  const before = backend.exchanges.length;
  const res = await operate(op, jar, json);
  const text = await res.text();
  const exchanges = backend.exchanges.slice(before);
  expect(exchanges, op).toHaveLength(1);
  const [exchange] = exchanges;
  expect(res.status, op).toBe(exchange.status);
  expect(text, op).toBe(exchange.answer);
  expect(res.headers.get("content-type")).toBe("application/json");
  expect(res.headers.get("cache-control")).toBe("no-store");
  return { status: res.status, body: JSON.parse(text), exchange };
}

function expectSignedFor(
  exchange: { headers: Record<string, unknown> },
  user: { id: string; email: string },
) {
  expect(exchange.headers.authorization).toBe(`Bearer ${INTERNAL_API_KEY}`);
  expect(exchange.headers["x-user-id"]).toBe(user.id);
  expect(exchange.headers["x-user-email"]).toBe(user.email);
  expect(exchange.headers["x-user-role"]).toBe("user");
  expect(exchange.headers["x-user-signature"]).toBe(
    signUserContext(HMAC_SECRET, { userId: user.id, userEmail: user.email, userRole: "user" }),
  );
}

describe("reads reach the backend for the user's agent", () => {
  it("state, stats, gateway-token and health: the backend's answers, as they are", async () => {
    const { user, jar, agent } = await userWithAgent();
    for (const op of ["state", "stats", "gateway-token", "health"] as const) {
      const { exchange } = await forwarded(op, jar);
      expect(exchange.method).toBe("GET");
      expect(exchange.path).toBe(`/api/agents/${agent.id}/${op}`);
      expectSignedFor(exchange, user);
    }
    const state = await forwarded("state", jar);
    expect(state.status).toBe(200);
    expect(state.body.agent).toMatchObject({ id: agent.id });
    expect(state.body.probe).toMatchObject({ status: "running" });

    const health = await forwarded("health", jar);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: "running", agentId: agent.id, url: wrapper.url });

    const token = await forwarded("gateway-token", jar);
    expect(token.status).toBe(200);
    expect(token.body).toEqual({ token: GATEWAY_TOKEN });

    // No hosting platform is configured on this backend: its 503 comes through unchanged.
    const stats = await forwarded("stats", jar);
    expect(stats.status).toBe(503);
  });
});

describe("lifecycle actions reach the backend for the user's agent", () => {
  it("each one: the backend's status and body, whatever they are", async () => {
    const { user, jar, agent } = await userWithAgent();
    for (const op of LIFECYCLE) {
      const { exchange } = await forwarded(op, jar);
      expect(exchange.method).toBe("POST");
      expect(exchange.path).toBe(`/api/agents/${agent.id}/${op}`);
      expectSignedFor(exchange, user);
    }
    // Operations that need the hosting platform get the backend's 503 (none configured here).
    const restart = await forwarded("restart", jar);
    expect(restart.status).toBe(503);
    expect(restart.body.error).toBeTypeOf("string");
  });

  it("the compatibility check runs end to end: fixes applied once, then none", async () => {
    const { jar } = await userWithAgent();
    wrapperConfig = { plugins: ["memory"] };
    const first = await forwarded("compat", jar);
    expect(first.status).toBe(200);
    expect(first.body.applied).toContain("plugin-config-migration");
    expect(wrapperConfig.plugins).toEqual({ entries: { memory: { enabled: true } } });
    const again = await forwarded("compat", jar);
    expect(again).toMatchObject({ status: 200, body: { applied: [] } });
    // The wrapper's admin API was called with the admin password, never with the gateway token.
    expect(configAuthorizations.length).toBeGreaterThan(0);
    expect(configAuthorizations).not.toContain(`Bearer ${GATEWAY_TOKEN}`);
  });

  it("maintenance forwards {action}: restart by default, factory-reset when asked; anything else is 400 here", async () => {
    const { jar } = await userWithAgent();
    const byDefault = await forwarded("maintenance", jar);
    expect(JSON.parse(byDefault.exchange.body)).toEqual({ action: "restart" });
    const reset = await forwarded("maintenance", jar, { action: "factory-reset" });
    expect(JSON.parse(reset.exchange.body)).toEqual({ action: "factory-reset" });

    const before = backend.exchanges.length;
    for (const json of [{ action: "explode" }, { action: 1 }, { action: "restart", extra: true }]) {
      const res = await operate("maintenance", jar, json);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("invalid_request");
    }
    expect(backend.exchanges.length).toBe(before);
  });
});

describe("which agent", () => {
  it("no agent: 404 {error: no_agent}, except health, 200 {status: no_agent}; the backend is not called", async () => {
    const { jar } = await signedInUser();
    const before = backend.exchanges.length;
    for (const op of OPERATIONS) {
      const res = await operate(op, jar);
      if (op === "health") {
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ status: "no_agent" });
      } else {
        expect(res.status, op).toBe(404);
        expect(await res.json()).toEqual({ error: "no_agent", message: "no agent deployed" });
      }
    }
    expect(backend.exchanges.length).toBe(before);
  });

  it("the newest of the user's agents", async () => {
    const { user, jar } = await signedInUser();
    const older = await addAgent(user.id, "Older");
    await webContext()
      .db.update(agents)
      .set({ createdAt: new Date("2026-01-01T00:00:00Z") })
      .where(eq(agents.id, older.id));
    const newer = await addAgent(user.id, "Newer");
    const { exchange } = await forwarded("state", jar);
    expect(exchange.path).toBe(`/api/agents/${newer.id}/state`);
  });

  it("another user's agent is never reachable", async () => {
    const owner = await userWithAgent();
    const stranger = await signedInUser();
    const before = backend.exchanges.length;
    for (const op of OPERATIONS) {
      const res = await operate(op, stranger.jar);
      expect(res.status, op).toBe(op === "health" ? 200 : 404);
    }
    expect(backend.exchanges.length).toBe(before);

    // With an agent of their own, every call carries their agent and their identity, never the owner's.
    const strangerAgent = await addAgent(stranger.user.id);
    for (const op of OPERATIONS) {
      const { exchange } = await forwarded(op, stranger.jar);
      expect(exchange.path).toBe(`/api/agents/${strangerAgent.id}/${op}`);
      expect(exchange.headers["x-user-id"]).toBe(stranger.user.id);
    }
    expect(backend.exchanges.some((e) => e.path.includes(owner.agent.id))).toBe(false);

    // And the backend itself refuses the stranger's signed context on the owner's agent.
    const context = { userId: stranger.user.id, userEmail: stranger.user.email, userRole: "user" };
    const direct = await fetch(`${backend.directUrl}/api/agents/${owner.agent.id}/gateway-token`, {
      headers: {
        authorization: `Bearer ${INTERNAL_API_KEY}`,
        "x-user-id": context.userId,
        "x-user-email": context.userEmail,
        "x-user-role": context.userRole,
        "x-user-signature": signUserContext(HMAC_SECRET, context),
      },
    });
    expect(direct.status).toBe(404);
    expect(await direct.text()).not.toContain(GATEWAY_TOKEN);
  });

  it("401 without a session, in the runtime routes' shape; the backend is not called", async () => {
    const before = backend.exchanges.length;
    for (const op of OPERATIONS) {
      const res = await operate(op, undefined);
      expect(res.status, op).toBe(401);
      expect(await res.json()).toEqual({ error: "unauthorized", message: "sign in first" });
    }
    expect((await call(CONTROLS, { path: "/api/runtime/controls" })).status).toBe(401);
    expect(backend.exchanges.length).toBe(before);
  });
});

describe("NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS", () => {
  it("false: the web answers 503 itself for every lifecycle action; reads still reach the backend", async () => {
    const { jar, agent } = await userWithAgent();
    expect(await (await call(CONTROLS, { path: "/api/runtime/controls", jar })).json()).toEqual({
      enabled: true,
    });
    overrideWebContext({
      config: loadWebConfig({
        DATABASE_URL: process.env.DATABASE_URL,
        SESSION_SECRET: TEST_SESSION_SECRET,
        LOG_LEVEL: "silent",
        ...webEnv,
        NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS: "false",
      }),
    });
    try {
      const before = backend.exchanges.length;
      for (const op of LIFECYCLE) {
        const res = await operate(op, jar);
        expect(res.status, op).toBe(503);
        expect(await res.json()).toEqual({
          error: "runtime_controls_disabled",
          message: "runtime controls are disabled on this platform",
        });
      }
      expect(backend.exchanges.length).toBe(before);
      const { exchange, status } = await forwarded("state", jar);
      expect(status).toBe(200);
      expect(exchange.path).toBe(`/api/agents/${agent.id}/state`);
      expect(await (await call(CONTROLS, { path: "/api/runtime/controls", jar })).json()).toEqual({
        enabled: false,
      });
    } finally {
      overrideWebContext({ config });
    }
  });
});

describe("runtime version", () => {
  it("the backend's version, floating tag normalized to 2026.4.11, with deployedAt; both web paths agree", async () => {
    const before = backend.exchanges.length;
    const res = await call(RUNTIME_VERSION, { path: "/api/runtime-version" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      version: "2026.4.11",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      defaultImage: "ghcr.io/openclaw/openclaw:latest",
      fallback: false,
      deployedAt: expect.any(String),
    });
    expect(new Date(body.deployedAt).toISOString()).toBe(body.deployedAt);
    const [exchange] = backend.exchanges.slice(before);
    expect(exchange).toMatchObject({ method: "GET", path: "/api/runtime/version", status: 200 });
    expect(exchange.headers.authorization).toBe(`Bearer ${INTERNAL_API_KEY}`);
    expect(exchange.headers["x-user-id"]).toBeUndefined();

    const web = await call(RUNTIME_VERSION_WEB, { path: "/api/runtime/version" });
    expect(await web.json()).toEqual(body);
  });

  it("a backend that refuses (wrong internal key): the fallback from this web's RUNTIME_IMAGE", async () => {
    overrideWebContext({
      config: loadWebConfig({
        DATABASE_URL: process.env.DATABASE_URL,
        SESSION_SECRET: TEST_SESSION_SECRET,
        LOG_LEVEL: "silent",
        ...webEnv,
        INTERNAL_API_KEY: "not-the-key",
      }),
    });
    try {
      const before = backend.exchanges.length;
      const body = await (await call(RUNTIME_VERSION, { path: "/api/runtime-version" })).json();
      expect(backend.exchanges.slice(before).map((e) => e.status)).toEqual([403]);
      expect(body).toEqual({
        version: "2026.9.9",
        image: "ghcr.io/openclaw/openclaw:2026.9.9",
        defaultImage: "ghcr.io/openclaw/openclaw:2026.9.9",
        fallback: true,
        deployedAt: expect.any(String),
      });
    } finally {
      overrideWebContext({ config });
    }
  });
});
