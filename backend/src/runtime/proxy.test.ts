/**
 * The runtime proxy on a real listening backend (the upgrade handler attached as server.ts does), in front
 * of loopback agents: HTTP streaming both ways, WebSocket, and who may use it.
 */
import { createLogger, freePort, SESSION_COOKIE } from "@svc/common";
import { startAgentImpostor, startFakeUpstream } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { errorMapper } from "../http/errors";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  headersFor,
  INTERNAL_API_KEY,
  type ServedApp,
  serveApp,
  type TestUser,
  testApp,
  testConfig,
  testDatabase,
} from "../testing";
import { runtimeProxyRoutes, runtimeProxyUpgrade, splitProxyPath } from "./proxy";
import { FakePlatform } from "./testing/fake-platform";
import { ADMIN_EMAIL, type SeededAgent, seedAgent } from "./testing/fixtures";

const database = testDatabase();
const platform = new FakePlatform();
const config = testConfig({ DATA_ENCRYPTION_KEY, ADMIN_EMAILS: ADMIN_EMAIL });
let served: ServedApp;
let base = "";
let owner: TestUser;
let stranger: TestUser;
let seeded: SeededAgent;

beforeAll(async () => {
  served = await serveApp(testApp({ config }));
  const upgrade = runtimeProxyUpgrade({ db: database.db, config });
  served.server.on("upgrade", (req, socket, head) => {
    if (!upgrade(req, socket, head)) socket.destroy();
  });
  base = served.url;
  owner = await createUser();
  stranger = await createUser();
  seeded = await seedAgent(platform, owner);
});
afterAll(async () => {
  await served.close();
  await platform.close();
});

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string | undefined>;
  body: string;
}

const proxyUrl = (agentId: string, rest: string) => `${base}/api/runtime/proxy/${agentId}${rest}`;

describe("HTTP", () => {
  it("strips the prefix, keeps the query, sends the agent's token and none of the platform's credentials", async () => {
    const res = await fetch(proxyUrl(seeded.agent.id, "/echo/deep?x=1&y=two"), {
      headers: { ...headersFor(owner), cookie: `${SESSION_COOKIE}=secret-session`, "x-custom": "kept" },
    });
    expect(res.status).toBe(200);
    const seen = (await res.json()) as Echo;
    expect(seen.method).toBe("GET");
    expect(seen.url).toBe("/echo/deep?x=1&y=two");
    expect(seen.headers.authorization).toBe(`Bearer ${seeded.token}`);
    expect(seen.headers["x-custom"]).toBe("kept");
    expect(seen.headers["x-forwarded-for"]).toBe("127.0.0.1");
    for (const name of ["cookie", "x-user-id", "x-user-email", "x-user-role", "x-user-signature"])
      expect(seen.headers[name]).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(INTERNAL_API_KEY);
  });

  it("forwards a request body untouched (the JSON parser does not consume it) and the agent's status", async () => {
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "hé".repeat(5000) }] });
    const res = await fetch(proxyUrl(seeded.agent.id, "/echo"), {
      method: "POST",
      headers: { ...headersFor(owner), "content-type": "application/json" },
      body,
    });
    const seen = (await res.json()) as Echo;
    expect(seen.method).toBe("POST");
    expect(seen.body).toBe(body);
    const missing = await fetch(proxyUrl(seeded.agent.id, "/nothing-here"), { headers: headersFor(owner) });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "not found", path: "/nothing-here" });
  });

  it("streams the answer as it arrives", async () => {
    seeded.service?.agent.hold();
    const res = await fetch(proxyUrl(seeded.agent.id, "/held"), { headers: headersFor(owner) });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    // The agent holds "second" until released: this chunk could only come through unbuffered.
    expect(new TextDecoder().decode(first.value)).toBe("first\n");
    seeded.service?.agent.release();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe("second\n");
  });

  it("401 without the internal key; another user's agent is 404; an administrator may use it", async () => {
    const none = await fetch(proxyUrl(seeded.agent.id, "/echo"));
    expect(none.status).toBe(401);
    const foreign = await fetch(proxyUrl(seeded.agent.id, "/echo"), { headers: headersFor(stranger) });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ error: "agent_not_found", message: "agent not found" });
    const admin = await createUser({ email: ADMIN_EMAIL });
    const emailOnly = await fetch(proxyUrl(seeded.agent.id, "/echo"), { headers: headersFor(admin) });
    expect(emailOnly.status).toBe(404);
    const allowed = await fetch(proxyUrl(seeded.agent.id, "/echo"), { headers: headersFor(admin, "admin") });
    expect(allowed.status).toBe(200);
  });

  it("504 when the agent sends no response headers in time", async () => {
    const app = express();
    app.use(runtimeProxyRoutes({ db: database.db, config, responseTimeoutMs: 100 }));
    app.use(errorMapper(createLogger("proxy-test", "silent")));
    const silent = await startFakeUpstream(() => undefined); // never answers
    try {
      const slow = await seedAgent(platform, owner, { service: false, url: silent.url });
      const res = await request(app).get(`/api/runtime/proxy/${slow.agent.id}/x`).set(headersFor(owner));
      expect(res.status).toBe(504);
      expect(res.body).toEqual({ error: "agent_timeout", message: "the agent did not answer within 0.1 s" });
    } finally {
      await silent.close();
    }
  });

  it("409 for an agent without URL, 502 when the agent is unreachable", async () => {
    const undeployed = await seedAgent(platform, owner, { service: false, url: null });
    const none = await fetch(proxyUrl(undeployed.agent.id, "/x"), { headers: headersFor(owner) });
    expect(none.status).toBe(409);
    const port = await freePort();
    await database.db
      .update(agents)
      .set({ url: `http://127.0.0.1:${port}` })
      .where(eq(agents.id, undeployed.agent.id));
    const down = await fetch(proxyUrl(undeployed.agent.id, "/x"), { headers: headersFor(owner) });
    expect(down.status).toBe(502);
    expect(await down.json()).toEqual({
      error: "agent_unreachable",
      message: "the agent could not be reached (ECONNREFUSED)",
    });
  });
});

/** Opens a WebSocket; resolves with the socket and its first message, or the refusal status. */
function openSocket(
  url: string,
  headers: Record<string, string>,
): Promise<{ ws: WebSocket; first: string } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once("message", (data) => resolve({ ws, first: data.toString() }));
    ws.once("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.once("error", (err) => {
      if (!String(err.message).includes("Unexpected server response")) reject(err);
    });
  });
}

function nextMessage(ws: WebSocket): Promise<string> {
  return new Promise((resolve) => ws.once("message", (data) => resolve(data.toString())));
}

describe("WebSocket", () => {
  const wsUrl = (agentId: string, rest = "/ws?room=1") => proxyUrl(agentId, rest).replace(/^http/, "ws");

  it("opens with the agent's gateway token, which the agent receives; messages flow both ways", async () => {
    const opened = await openSocket(wsUrl(seeded.agent.id), { authorization: `Bearer ${seeded.token}` });
    if (!("ws" in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    expect(opened.first).toBe("hello /ws?room=1");
    opened.ws.send("ping over the proxy");
    expect(await nextMessage(opened.ws)).toBe("ping over the proxy");
    opened.ws.close();
    expect(seeded.service?.agent.wsAuthorizations.at(-1)).toBe(`Bearer ${seeded.token}`);
  });

  it("opens with the internal key and the owner's signed context; the agent gets its own token instead", async () => {
    const opened = await openSocket(wsUrl(seeded.agent.id), headersFor(owner));
    if (!("ws" in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    opened.ws.close();
    expect(seeded.service?.agent.wsAuthorizations.at(-1)).toBe(`Bearer ${seeded.token}`);
  });

  it("an ADMIN_EMAILS context opens another user's agent only when signed with role admin", async () => {
    // The signed context is all the backend sees of the administrator (no row needed).
    const admin = { id: "usr_ws_admin", email: ADMIN_EMAIL };
    expect(await openSocket(wsUrl(seeded.agent.id), headersFor(admin))).toMatchObject({ status: 404 });
    const opened = await openSocket(wsUrl(seeded.agent.id), headersFor(admin, "admin"));
    if (!("ws" in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    opened.ws.close();
  });

  it("refuses: no Bearer 401, a wrong token 403, another user's context 404, unsigned context 401", async () => {
    const before = seeded.service?.agent.wsAuthorizations.length;
    expect(await openSocket(wsUrl(seeded.agent.id), {})).toMatchObject({ status: 401 });
    const wrong = await openSocket(wsUrl(seeded.agent.id), { authorization: `Bearer ${"0".repeat(64)}` });
    expect(wrong).toEqual({
      status: 403,
      body: JSON.stringify({ error: "forbidden", message: "the token is not this agent's gateway token" }),
    });
    // Another agent's token does not open this agent.
    const other = await seedAgent(platform, stranger, { token: "b2".repeat(32) });
    expect(
      await openSocket(wsUrl(seeded.agent.id), { authorization: `Bearer ${other.token}` }),
    ).toMatchObject({
      status: 403,
    });
    expect(await openSocket(wsUrl(seeded.agent.id), headersFor(stranger))).toMatchObject({ status: 404 });
    expect(await openSocket(wsUrl(seeded.agent.id), headersFor("internal"))).toMatchObject({ status: 401 });
    expect(seeded.service?.agent.wsAuthorizations.length).toBe(before);
  });

  it("another agent on the agent's port gets neither the HTTP nor the WebSocket request's token: 502", async () => {
    const moved = await seedAgent(platform, owner);
    const impostor = await startAgentImpostor();
    try {
      await database.db.update(agents).set({ url: impostor.url }).where(eq(agents.id, moved.agent.id));
      const notProven = {
        error: "agent_unreachable",
        message: `the agent at 127.0.0.1:${impostor.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`,
      };
      const res = await fetch(proxyUrl(moved.agent.id, "/echo"), {
        method: "POST",
        headers: headersFor(owner),
        body: "the user's data",
      });
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual(notProven);
      for (const headers of [{ authorization: `Bearer ${moved.token}` }, headersFor(owner)]) {
        expect(await openSocket(wsUrl(moved.agent.id), headers)).toEqual({
          status: 502,
          body: JSON.stringify(notProven),
        });
      }
      expect(impostor.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`)).toEqual([
        "GET /api/identity",
        "GET /api/identity",
        "GET /api/identity",
      ]);
      expect(impostor.requests.every((r) => r.body.length === 0)).toBe(true);
      expect(impostor.credentials).toEqual([]);
    } finally {
      await impostor.close();
    }
  });

  it("splitProxyPath only claims the proxy prefix", () => {
    expect(splitProxyPath("/ws/permissions?userId=u")).toBeNull();
    expect(splitProxyPath("/api/runtime/proxy/")).toBeNull();
    expect(splitProxyPath("/api/runtime/proxy/agt_1")).toEqual({ agentId: "agt_1", rest: "/" });
    expect(splitProxyPath("/api/runtime/proxy/agt_1?x=1")).toEqual({ agentId: "agt_1", rest: "/?x=1" });
    expect(splitProxyPath("/api/runtime/proxy/agt_1/a/b?c")).toEqual({ agentId: "agt_1", rest: "/a/b?c" });
  });
});
