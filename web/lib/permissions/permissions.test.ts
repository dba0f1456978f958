/**
 * `/api/permissions` and `/api/permissions/ws-ticket` against the REAL backend (its app with the permission
 * routes, its permission bus and WebSocket, in-process on loopback), seen through a recording relay so the
 * tests see exactly what the web sent and what the backend answered.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import net, { type AddressInfo } from "node:net";
import tls from "node:tls";
import { fileURLToPath } from "node:url";
import { createLogger, freePort, PERMISSION_TICKET_TTL_MS, verifyPermissionTicket } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { permissionRequests } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { POST as SIGN_OUT } from "@/app/api/auth/signout/route";
import { POST as DECIDE, GET as LIST } from "@/app/api/permissions/route";
import { GET as WS_TICKET } from "@/app/api/permissions/ws-ticket/route";
import { createApp } from "../../../backend/src/app";
import { loadBackendConfig } from "../../../backend/src/config";
import { createPermissionBus } from "../../../backend/src/permissions/bus";
import { permissionSocketUpgrade } from "../../../backend/src/permissions/socket";
import { createPermissionRequest } from "../../../backend/src/permissions/store";
import { createApiKey, revokeApiKey } from "../apikeys/service";
import { loadWebConfig } from "../infra/config";
import { overrideWebContext } from "../infra/context";
import { call, signedInUser, TEST_SESSION_SECRET, useWebTestContext, webContext } from "../infra/testing";
import { type RelayedExchange, startRecordingRelay } from "../runtime/testing/backend";
import { permissionSocketRelay } from "./socket-relay";

const INTERNAL_API_KEY = "perm-internal-key-0123456789abcdef";
const HMAC_SECRET = "perm-hmac-secret-0123456789abcdef";

// The backend: app with the permission routes, its bus, and the permission WebSocket.
const backendConfig = loadBackendConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  LOG_LEVEL: "silent",
});
const logger = createLogger("permissions-web-test", "silent");
const database = connectDatabase(backendConfig.DATABASE_URL, {
  applicationName: "permissions-backend",
  max: 5,
});
const bus = createPermissionBus({ connectionString: backendConfig.DATABASE_URL, logger });
await bus.start();
const server = createServer(createApp({ config: backendConfig, database, logger, permissionBus: bus }));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const backendUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

type Exchange = RelayedExchange;
const relay = await startRecordingRelay(backendUrl);
const { exchanges } = relay;

const webEnv = { BACKEND_URL: relay.url, INTERNAL_API_KEY, HMAC_SECRET };
const { clock } = useWebTestContext(webEnv);
const upgrade = permissionSocketUpgrade({ db: database.db, bus, config: backendConfig, logger, clock });
server.on("upgrade", (req, socket, head) => {
  if (!upgrade(req, socket, head)) socket.destroy();
});
const wsBase = backendUrl.replace("http:", "ws:");

afterAll(async () => {
  upgrade.close();
  await relay.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await bus.stop();
  await database.close();
});

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];

function pendingRequest(userId: string, agentId = "agt_web", command = "npm install left-pad") {
  return createPermissionRequest(database.db, {
    prefix: "perm",
    agentId,
    userId,
    toolName: "bash",
    toolInput: { command },
    tier: "dangerous",
    reason: "package install",
  });
}

const list = (jar?: Jar, query = "") => call(LIST, { path: `/api/permissions${query}`, jar });
const decide = (json: unknown, jar?: Jar) =>
  call(DECIDE, { method: "POST", path: "/api/permissions", json, jar });

async function rowOf(id: string) {
  const [row] = await database.db.select().from(permissionRequests).where(eq(permissionRequests.id, id));
  return row;
}

describe("session or API key required", () => {
  it("answers 401 without a session or key (a revoked key too), and never calls the backend", async () => {
    const { user } = await signedInUser();
    const key = await createApiKey(webContext(), user.id, { name: "revoked", scopes: ["approvals:write"] });
    await revokeApiKey(webContext(), user.id, key.id);
    const bearer = { authorization: `Bearer ${key.key}` };
    const before = exchanges.length;
    for (const res of [await list(), await decide({ requestId: "perm_1_x", decision: "approve" })]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: "sign in first",
        code: "unauthorized",
      });
    }
    for (const res of [
      await call(LIST, { path: "/api/permissions", headers: bearer }),
      await call(DECIDE, { method: "POST", path: "/api/permissions", headers: bearer, json: {} }),
      await call(WS_TICKET, { path: "/api/permissions/ws-ticket", headers: bearer }),
    ]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: "this API key is not valid: it is unknown or was deleted",
        code: "unauthorized",
      });
    }
    expect(exchanges.length).toBe(before);
  });

  it("a bearer API key (the spec's bearer) lists and decides the key owner's requests", async () => {
    const { user } = await signedInUser();
    const key = await createApiKey(webContext(), user.id, { name: "ops", scopes: ["approvals:write"] });
    const bearer = { authorization: `Bearer ${key.key}` };
    const mine = await pendingRequest(user.id);
    const listed = await call(LIST, { path: "/api/permissions", headers: bearer });
    expect(listed.status).toBe(200);
    expect((await listed.json()).pending.map((p: { id: string }) => p.id)).toEqual([mine.id]);
    expect(exchanges.at(-1)?.headers).toMatchObject({ "x-user-id": user.id });
    const decided = await call(DECIDE, {
      method: "POST",
      path: "/api/permissions",
      headers: bearer,
      json: { requestId: mine.id, decision: "approve" },
    });
    expect(await decided.json()).toEqual({ success: true, requestId: mine.id, decision: "approve" });
    expect(await rowOf(mine.id)).toMatchObject({ status: "approved" });
  });
});

describe("GET /api/permissions", () => {
  it("relays the user's pending requests, signed for that user, optionally of one agent", async () => {
    const { user, jar } = await signedInUser();
    const other = await signedInUser();
    const first = await pendingRequest(user.id, "agt_one");
    const second = await pendingRequest(user.id, "agt_two", "curl -X POST https://example.com");
    await pendingRequest(other.user.id, "agt_one");

    const res = await list(jar);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    // Oldest first, the id breaking a tie: two requests made in the same millisecond come in id order.
    const oldestFirst = [
      {
        id: first.id,
        agentId: "agt_one",
        userId: user.id,
        toolName: "bash",
        toolInput: { command: "npm install left-pad" },
        tier: "dangerous",
        reason: "package install",
        timestamp: first.timestamp,
        status: "pending",
        decision: null,
        decidedAt: null,
      },
      expect.objectContaining({ id: second.id, agentId: "agt_two" }),
    ];
    if (first.timestamp === second.timestamp && second.id < first.id) oldestFirst.reverse();
    expect(body).toEqual({ pending: oldestFirst, nextCursor: null });
    const sent = exchanges.at(-1) as Exchange;
    expect(sent).toMatchObject({ method: "GET", path: "/api/permissions", status: 200 });
    expect(JSON.parse(sent.answer)).toEqual(body);
    expect(sent.headers).toMatchObject({ authorization: `Bearer ${INTERNAL_API_KEY}`, "x-user-id": user.id });

    const filtered = await (await list(jar, "?agentId=agt_two")).json();
    expect(filtered.pending.map((p: { id: string }) => p.id)).toEqual([second.id]);
    expect(exchanges.at(-1)?.path).toBe("/api/permissions?agentId=agt_two");
    expect((await (await list(other.jar)).json()).pending).toHaveLength(1);
  });

  it("pages through the backend with limit and cursor; the backend's 400 for a bad limit passes through", async () => {
    const { user, jar } = await signedInUser();
    const ids = [];
    for (const agent of ["agt_a", "agt_b", "agt_c"]) ids.push((await pendingRequest(user.id, agent)).id);

    const first = await (await list(jar, "?limit=2")).json();
    expect(first.pending).toHaveLength(2);
    expect(typeof first.nextCursor).toBe("string");
    expect(exchanges.at(-1)?.path).toBe("/api/permissions?limit=2");
    const second = await (await list(jar, `?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`)).json();
    expect(second).toMatchObject({ nextCursor: null });
    const seen = [...first.pending, ...second.pending].map((p: { id: string }) => p.id);
    expect(seen.sort()).toEqual([...ids].sort());

    const bad = await list(jar, "?limit=0");
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBeTypeOf("string");
  });
});

describe("POST /api/permissions", () => {
  it("decides through the backend and answers without tier; feedback and modifiedInput are not forwarded", async () => {
    const { user, jar } = await signedInUser();
    const request = await pendingRequest(user.id);
    const res = await decide(
      { requestId: request.id, decision: "approve", feedback: "fine", modifiedInput: "npm i left-pad" },
      jar,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, requestId: request.id, decision: "approve" });
    const sent = exchanges.at(-1) as Exchange;
    expect(JSON.parse(sent.body)).toEqual({ requestId: request.id, decision: "approve" });
    expect(JSON.parse(sent.answer)).toEqual({
      success: true,
      requestId: request.id,
      decision: "approve",
      tier: "dangerous",
    });
    expect(await rowOf(request.id)).toMatchObject({ status: "approved", decision: "approve" });

    const rejected = await pendingRequest(user.id);
    expect(await (await decide({ requestId: rejected.id, decision: "reject" }, jar)).json()).toEqual({
      success: true,
      requestId: rejected.id,
      decision: "reject",
    });
    expect(await rowOf(rejected.id)).toMatchObject({ status: "rejected", decision: "reject" });
  });

  it("answers 400 for missing or invalid fields, without calling the backend or changing anything", async () => {
    const { user, jar } = await signedInUser();
    const request = await pendingRequest(user.id);
    const before = exchanges.length;
    const cases: [unknown, string, string?][] = [
      [{ decision: "approve" }, "Request is required", "requestId"],
      [{ requestId: "", decision: "approve" }, "Request is required", "requestId"],
      [{ requestId: 42, decision: "approve" }, "Request must be a string", "requestId"],
      [{ requestId: request.id }, "Decision is required", "decision"],
      [
        { requestId: request.id, decision: "allow" },
        "Decision must be approve, reject or approve_always",
        "decision",
      ],
      [{ requestId: request.id, decision: "approve", feedback: 3 }, "Feedback must be a string", "feedback"],
      [
        { requestId: request.id, decision: "approve", modifiedInput: {} },
        "Modified input must be a string",
        "modifiedInput",
      ],
      [{ requestId: request.id, decision: "approve", tier: "safe" }, "unknown field: tier"],
    ];
    for (const [json, message, field] of cases) {
      const res = await decide(json, jar);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(await res.json()).toEqual({
        error: message,
        code: "invalid_request",
        ...(field ? { field } : {}),
      });
    }
    const badJson = await call(DECIDE, {
      method: "POST",
      path: "/api/permissions",
      body: "{",
      headers: { "content-type": "application/json" },
      jar,
    });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ error: "request body is not valid JSON", code: "invalid_json" });
    expect(exchanges.length).toBe(before);
    expect(await rowOf(request.id)).toMatchObject({ status: "pending", decision: null });
  });

  it("answers 404 for a missing, another user's, or an already decided request", async () => {
    const { user, jar } = await signedInUser();
    const other = await signedInUser();
    const foreign = await pendingRequest(other.user.id);
    const decided = await pendingRequest(user.id);
    await decide({ requestId: decided.id, decision: "reject" }, jar);
    for (const requestId of ["perm_0_missing", foreign.id, decided.id]) {
      const res = await decide({ requestId, decision: "approve" }, jar);
      expect(res.status, requestId).toBe(404);
      expect(await res.json()).toEqual({
        error: "permission request not found",
        code: "permission_not_found",
      });
    }
    expect(await rowOf(foreign.id)).toMatchObject({ status: "pending" });
    expect(await rowOf(decided.id)).toMatchObject({ status: "rejected", decision: "reject" });
  });
});

describe("GET /api/permissions/ws-ticket", () => {
  it("issues a 60 s ticket that opens the backend's permission WebSocket for the user", async () => {
    const { user, jar } = await signedInUser();
    const res = await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const ticket = await res.json();
    const issuedAt = clock.now().getTime();
    expect(ticket).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.\d+\.[0-9a-f]{64}$/),
      userId: user.id,
      expiresAt: new Date(issuedAt + PERMISSION_TICKET_TTL_MS).toISOString(),
    });
    expect(verifyPermissionTicket(HMAC_SECRET, ticket.token, issuedAt)).toEqual({
      ok: true,
      userId: user.id,
      sessionId: expect.stringMatching(/^ses_/),
      expiresAtMs: issuedAt + PERMISSION_TICKET_TTL_MS,
    });

    // The socket opens with it, and hears the decision the user then makes through the web.
    const frames: { type: string; [key: string]: unknown }[] = [];
    const socket = new WebSocket(`${wsBase}/ws/permissions?userId=${user.id}&token=${ticket.token}`);
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    await vi.waitFor(() =>
      expect(frames[0]).toEqual({ type: "connected", userId: user.id, timestamp: issuedAt }),
    );
    const request = await pendingRequest(user.id);
    await decide({ requestId: request.id, decision: "approve_always" }, jar);
    await vi.waitFor(() =>
      expect(frames.find((f) => f.type === "decision_ack")).toMatchObject({
        requestId: request.id,
        decision: "approve_always",
      }),
    );
    socket.close();

    // Another user's id with it, or the same ticket once 60 s have passed: 4003.
    const other = await signedInUser();
    expect(await closeCode(`userId=${other.user.id}&token=${ticket.token}`)).toBe(4003);
    clock.advance(PERMISSION_TICKET_TTL_MS);
    expect(await closeCode(`userId=${user.id}&token=${ticket.token}`)).toBe(4003);
  });

  it("a socket opened with a ticket ends with the session: after sign-out it decides nothing (4003)", async () => {
    const { user, jar } = await signedInUser();
    const ticket = await (await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar })).json();
    const socket = new WebSocket(`${wsBase}/ws/permissions?userId=${user.id}&token=${ticket.token}`);
    const frames: { type: string }[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    await vi.waitFor(() => expect(frames[0]).toMatchObject({ type: "connected" }));
    const request = await pendingRequest(user.id);
    const out = await call(SIGN_OUT, { method: "POST", path: "/api/auth/signout", jar });
    expect(out.status).toBe(200);
    socket.send(JSON.stringify({ type: "decision", requestId: request.id, decision: "approve" }));
    expect(await closed).toBe(4003);
    expect(frames.some((frame) => frame.type === "decision_ack")).toBe(false);
    expect(await rowOf(request.id)).toMatchObject({ status: "pending" });
    // Nor does its ticket open another socket.
    expect(await closeCode(`userId=${user.id}&token=${ticket.token}`)).toBe(4003);
  });
});

describe("the permission WebSocket through the web server (socket relay)", () => {
  it("relays /ws/permissions to the backend, which authenticates it; other paths are not taken", async () => {
    const relaySocket = permissionSocketRelay(backendUrl, webContext().config.PUBLIC_URL);
    const declined: string[] = [];
    const web = createServer((_req, res) => res.end());
    web.on("upgrade", (req, socket, head) => {
      if (relaySocket(req, socket, head)) return;
      declined.push(req.url ?? "");
      socket.destroy();
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const webWs = `ws://127.0.0.1:${(web.address() as AddressInfo).port}`;
    try {
      const { user, jar } = await signedInUser();
      const ticket = await (await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar })).json();
      const frames: { type: string; [key: string]: unknown }[] = [];
      const socket = new WebSocket(`${webWs}/ws/permissions?userId=${user.id}&token=${ticket.token}`);
      socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
      await vi.waitFor(() => expect(frames[0]).toMatchObject({ type: "connected", userId: user.id }));
      socket.send(JSON.stringify({ type: "ping" }));
      await vi.waitFor(() => expect(frames.some((f) => f.type === "pong")).toBe(true));
      socket.close();

      // The backend's own closes come through unchanged.
      const missing = new WebSocket(`${webWs}/ws/permissions`);
      missing.on("error", () => undefined);
      expect(await new Promise((resolve) => missing.on("close", (code) => resolve(code)))).toBe(4001);

      const elsewhere = new WebSocket(`${webWs}/ws/other`);
      const refused = await new Promise((resolve) => {
        elsewhere.on("error", () => resolve(true));
        elsewhere.on("open", () => resolve(false));
      });
      expect(refused).toBe(true);
      expect(declined).toEqual(["/ws/other"]);
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it("reaches an https BACKEND_URL over TLS (an untrusted certificate is 502), and keeps a path prefix", async () => {
    const fixtures = fileURLToPath(new URL("../../../common/testing/fixtures/tls/", import.meta.url));
    const cert = await readFile(`${fixtures}loopback-cert.pem`);
    const key = await readFile(`${fixtures}loopback-key.pem`);
    // TLS in front of the backend, as a load balancer terminating it would be.
    const terminator = tls.createServer({ key, cert }, (clear) => {
      const plain = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
      clear.pipe(plain).on("error", () => clear.destroy());
      plain.pipe(clear).on("error", () => plain.destroy());
      clear.on("error", () => plain.destroy());
    });
    await new Promise<void>((resolve) => terminator.listen(0, "127.0.0.1", resolve));
    const httpsBackend = `https://127.0.0.1:${(terminator.address() as AddressInfo).port}`;
    // A plain listener that records the request line it is sent.
    const lines: string[] = [];
    const recorder = net.createServer((conn) => {
      conn.once("data", (data) => {
        lines.push(data.toString().split("\r\n")[0]);
        conn.destroy();
      });
    });
    await new Promise<void>((resolve) => recorder.listen(0, "127.0.0.1", resolve));
    const prefixed = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}/platform/backend/`;
    const publicUrl = webContext().config.PUBLIC_URL;
    const relays = {
      trusted: permissionSocketRelay(httpsBackend, publicUrl, { tls: { ca: cert } }),
      untrusted: permissionSocketRelay(httpsBackend, publicUrl),
      prefixed: permissionSocketRelay(prefixed, publicUrl),
    };
    const web = createServer((_req, res) => res.end());
    web.on("upgrade", (req, socket, head) => {
      const which = new URL(req.url ?? "/", "http://x").searchParams.get("via") as keyof typeof relays;
      if (!relays[which]?.(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const webWs = `ws://127.0.0.1:${(web.address() as AddressInfo).port}/ws/permissions`;
    try {
      const { user, jar } = await signedInUser();
      const ticket = await (await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar })).json();
      const frames: { type: string }[] = [];
      const socket = new WebSocket(`${webWs}?via=trusted&userId=${user.id}&token=${ticket.token}`);
      socket.on("message", (data) => frames.push(JSON.parse(data.toString())));
      await vi.waitFor(() => expect(frames[0]).toMatchObject({ type: "connected", userId: user.id }));
      socket.close();

      const untrusted = new WebSocket(`${webWs}?via=untrusted&userId=${user.id}&token=${ticket.token}`);
      expect(
        await new Promise((resolve) =>
          untrusted.on("unexpected-response", (_req, res) => resolve(res.statusCode)),
        ),
      ).toBe(502);

      const viaPrefix = new WebSocket(`${webWs}?via=prefixed&userId=u`);
      viaPrefix.on("error", () => undefined);
      await vi.waitFor(() =>
        expect(lines).toEqual(["GET /platform/backend/ws/permissions?via=prefixed&userId=u HTTP/1.1"]),
      );
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
      await new Promise((resolve) => terminator.close(resolve));
      await new Promise((resolve) => recorder.close(resolve));
    }
  });

  it("answers 502 when the backend cannot be reached", async () => {
    const relaySocket = permissionSocketRelay(
      `http://127.0.0.1:${await freePort()}`,
      webContext().config.PUBLIC_URL,
    );
    const web = createServer((_req, res) => res.end());
    web.on("upgrade", (req, socket, head) => {
      if (!relaySocket(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    try {
      const socket = new WebSocket(
        `ws://127.0.0.1:${(web.address() as AddressInfo).port}/ws/permissions?userId=u`,
      );
      const status = await new Promise((resolve) =>
        socket.on("unexpected-response", (_req, res) => resolve(res.statusCode)),
      );
      expect(status).toBe(502);
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  });

  it("refuses a cookie upgrade from another site's page (relay 403, backend 4003); tickets and the own origin pass", async () => {
    const publicUrl = webContext().config.PUBLIC_URL;
    const relaySocket = permissionSocketRelay(backendUrl, publicUrl);
    const web = createServer((_req, res) => res.end());
    web.on("upgrade", (req, socket, head) => {
      if (!relaySocket(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const webWs = `ws://127.0.0.1:${(web.address() as AddressInfo).port}/ws/permissions`;
    /** How an upgrade ended: `connected` (its first frame), the HTTP status of a refusal, or the close code. */
    const outcome = (query: string, headers: Record<string, string>) =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${webWs}?${query}`, { headers });
        socket.on("message", (data) => {
          resolve(JSON.parse(data.toString()).type);
          socket.close();
        });
        socket.on("unexpected-response", (_req, res) => resolve(`http ${res.statusCode}`));
        socket.on("close", (code) => resolve(`close ${code}`));
        socket.on("error", () => undefined);
      });
    try {
      const { user, jar } = await signedInUser();
      const cookie = jar.header();
      const evil = "https://evil.example";
      expect(await outcome(`userId=${user.id}`, { cookie, origin: evil })).toBe("http 403");
      expect(await outcome(`userId=${user.id}`, { cookie, origin: "null" })).toBe("http 403");
      expect(await outcome(`userId=${user.id}`, { cookie, origin: publicUrl })).toBe("connected");
      expect(await outcome(`userId=${user.id}`, { cookie })).toBe("connected");
      // A ticket is unaffected by Origin; a bad ticket passes the relay, and the backend then refuses the
      // cookie for the foreign Origin.
      const ticket = await (await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar })).json();
      expect(await outcome(`userId=${user.id}&token=${ticket.token}`, { origin: evil })).toBe("connected");
      expect(await outcome(`userId=${user.id}&token=bad`, { cookie, origin: evil })).toBe("close 4003");
      expect(await outcome(`userId=${user.id}&token=bad`, { cookie, origin: publicUrl })).toBe("connected");
    } finally {
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    }
  });
});

function closeCode(query: string): Promise<number> {
  const socket = new WebSocket(`${wsBase}/ws/permissions?${query}`);
  socket.on("error", () => undefined);
  return new Promise((resolve) => socket.on("close", (code) => resolve(code)));
}

// Last: these replace the web's configuration.
describe("the backend unreachable or misconfigured", () => {
  it("answers 502 when the backend cannot be reached or refuses the web's key", async () => {
    const { user, jar } = await signedInUser();
    const request = await pendingRequest(user.id);
    const reconfigure = (env: Record<string, string>) =>
      overrideWebContext({
        config: loadWebConfig({
          DATABASE_URL: process.env.DATABASE_URL,
          SESSION_SECRET: TEST_SESSION_SECRET,
          LOG_LEVEL: "silent",
          ...webEnv,
          ...env,
        }),
      });

    reconfigure({ BACKEND_URL: `http://127.0.0.1:${await freePort()}` });
    for (const res of [await list(jar), await decide({ requestId: request.id, decision: "approve" }, jar)]) {
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: "the backend is unreachable", code: "backend_unavailable" });
    }
    // The ticket needs no backend.
    expect((await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar })).status).toBe(200);

    reconfigure({ INTERNAL_API_KEY: "not-the-backends-key-0123456789" });
    for (const res of [await list(jar), await decide({ requestId: request.id, decision: "approve" }, jar)]) {
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ error: "the backend answered 403", code: "backend_error" });
    }
    expect(await rowOf(request.id)).toMatchObject({ status: "pending" });
    expect(webContext().config.INTERNAL_API_KEY).toBe("not-the-backends-key-0123456789");
  });

  it("answers 503 for a ticket when no signing key is configured", async () => {
    const { jar } = await signedInUser();
    overrideWebContext({
      config: loadWebConfig({
        DATABASE_URL: process.env.DATABASE_URL,
        SESSION_SECRET: TEST_SESSION_SECRET,
        LOG_LEVEL: "silent",
        BACKEND_URL: relay.url,
      }),
    });
    const res = await call(WS_TICKET, { path: "/api/permissions/ws-ticket", jar });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: "HMAC_SECRET or INTERNAL_API_KEY is not configured",
      code: "not_configured",
    });
  });
});
