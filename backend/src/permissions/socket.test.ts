/**
 * The permission WebSocket against real PostgreSQL and real loopback servers: identity (ticket, session
 * cookie, 4001, 4003), the message protocol, decisions, and fan-out across two backend processes that
 * share one database, each with its own permission bus (LISTEN/NOTIFY) and its own pool.
 *
 * Absence ("user B never receives A's request") is proven without waiting on time: events are published
 * in order, so a socket that received a later event of its own would already hold any earlier leaked one.
 */
import {
  createLogger,
  ManualClock,
  newId,
  PERMISSION_TICKET_TTL_MS,
  randomToken,
  SESSION_COOKIE,
  sha256Hex,
  signPermissionTicket,
} from "@svc/common";
import { connectDatabase, type DatabaseHandle } from "@svc/db";
import { agents, permissionRequests, sessions } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import express from "express";
import { afterAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { errorMapper, notFound } from "../http/errors";
import { createUser, HMAC_SECRET, headersFor, INTERNAL_API_KEY, serveApp } from "../testing";
import { createPermissionBus, type PermissionBus, type PermissionEvent } from "./bus";
import { permissionRoutes } from "./routes";
import {
  CLOSE_FORBIDDEN,
  CLOSE_USER_ID_REQUIRED,
  type PermissionSocketUpgrade,
  permissionSocketUpgrade,
} from "./socket";
import { createPermissionRequest } from "./store";

const DATABASE_URL = process.env.DATABASE_URL as string;
const logger = createLogger("permission-socket-test", "silent");
const clock = new ManualClock("2026-11-21T10:00:00.000Z");

interface BackendProcess {
  name: string;
  httpUrl: string;
  wsUrl: string;
  database: DatabaseHandle;
  bus: PermissionBus;
  upgrade: PermissionSocketUpgrade;
  /** Every event this process's bus delivered, in order. */
  events: PermissionEvent[];
  close(): Promise<void>;
}

/**
 * One backend process: its own pool, its own bus, its own HTTP server serving the permission routes and the
 * socket's upgrade handler.
 */
async function startProcess(name: string, heartbeatIntervalMs?: number): Promise<BackendProcess> {
  const database = connectDatabase(DATABASE_URL, { applicationName: name, max: 4 });
  const bus = createPermissionBus({ connectionString: DATABASE_URL, logger });
  await bus.start();
  const events: PermissionEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const upgrade = permissionSocketUpgrade({
    db: database.db,
    bus,
    config: { HMAC_SECRET, INTERNAL_API_KEY },
    logger,
    clock,
    heartbeatIntervalMs,
  });
  const app = express();
  app.use(express.json());
  app.use(permissionRoutes({ db: database.db, bus, config: { HMAC_SECRET, INTERNAL_API_KEY }, logger }));
  app.use(notFound);
  app.use(errorMapper(logger));
  const server = await serveApp(app);
  server.server.on("upgrade", (req, socket, head) => {
    if (!upgrade(req, socket, head)) socket.destroy();
  });
  return {
    name,
    httpUrl: server.url,
    wsUrl: server.url.replace("http", "ws"),
    database,
    bus,
    upgrade,
    events,
    async close() {
      upgrade.close();
      await server.close();
      await bus.stop();
      await database.close();
    },
  };
}

type Frame = { type: string } & Record<string, unknown>;

/** A test client: every frame it received, in order, and how it closed. */
class Client {
  readonly frames: Frame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly ws: WebSocket;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { headers });
    this.ws.on("message", (data) => this.frames.push(JSON.parse(data.toString())));
    this.closed = new Promise((resolve) => {
      this.ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }));
    });
    this.ws.on("error", () => undefined);
  }

  /** The first frame that satisfies `match`, once it has arrived. */
  waitFor(match: (frame: Frame) => boolean): Promise<Frame> {
    return vi.waitFor(
      () => {
        const frame = this.frames.find(match);
        if (!frame) throw new Error(`no such frame yet; got ${JSON.stringify(this.frames)}`);
        return frame;
      },
      { timeout: 10_000, interval: 10 },
    );
  }

  ofType(type: string): Frame[] {
    return this.frames.filter((frame) => frame.type === type);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  close(): void {
    this.ws.close();
  }
}

const processA = await startProcess("backend-a");
const processB = await startProcess("backend-b");
const clients: Client[] = [];
afterAll(async () => {
  for (const client of clients) client.ws.terminate();
  await processA.close();
  await processB.close();
});

function connect(backend: BackendProcess, query: string, headers?: Record<string, string>): Client {
  const client = new Client(`${backend.wsUrl}/ws/permissions${query}`, headers);
  clients.push(client);
  return client;
}

/** The session socketUser made for each user: tickets are issued for a session. */
const sessionOf = new Map<string, string>();

/** A ticket for `userId`'s session, as the web issues it. */
const ticketFor = (userId: string, expiresAtMs: number, secret = HMAC_SECRET) =>
  signPermissionTicket(secret, userId, sessionOf.get(userId) ?? "ses_unknown", expiresAtMs);

/** A socket of `userId` proven by a fresh ticket, once `connected` has arrived. */
async function connectAs(backend: BackendProcess, userId: string): Promise<Client> {
  const ticket = ticketFor(userId, clock.now().getTime() + PERMISSION_TICKET_TTL_MS);
  const client = connect(backend, `?userId=${encodeURIComponent(userId)}&token=${ticket}`);
  await client.waitFor((frame) => frame.type === "connected");
  return client;
}

/** A user with a session and an agent. */
async function socketUser(): Promise<{ id: string; sessionId: string; sessionToken: string }> {
  const { id } = await createUser({ name: "Socket User" });
  const sessionToken = randomToken(32);
  const sessionId = newId("ses");
  await processA.database.db.insert(sessions).values({
    id: sessionId,
    tokenHash: sha256Hex(sessionToken),
    userId: id,
    expiresAt: new Date(clock.now().getTime() + 24 * 60 * 60 * 1000),
  });
  sessionOf.set(id, sessionId);
  await processA.database.db.insert(agents).values({ id: agentOf(id), userId: id, name: "Socket Agent" });
  return { id, sessionId, sessionToken };
}

const agentOf = (userId: string) => `agt_${userId.slice(4)}`;

/**
 * A dangerous tool call of `userId`, classified by `backend` through its `POST /api/permissions/classify`
 * (queued there and announced on that process's bus), as the web proxy would call it.
 */
async function classifyOn(backend: BackendProcess, userId: string, command: string): Promise<string> {
  const res = await fetch(`${backend.httpUrl}/api/permissions/classify`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...headersFor({ id: userId, email: `${userId}@example.com` }),
    },
    body: JSON.stringify({ agentId: agentOf(userId), toolName: "bash", toolInput: { command } }),
  });
  const answer = (await res.json()) as { allow: boolean; tier: string; requestId: string };
  expect(answer).toMatchObject({ allow: false, tier: "dangerous" });
  return answer.requestId;
}

async function statusOf(requestId: string) {
  const [row] = await processB.database.db
    .select()
    .from(permissionRequests)
    .where(eq(permissionRequests.id, requestId));
  return row;
}

describe("who may connect", () => {
  it("closes with 4001 when userId is missing", async () => {
    const client = connect(processA, "");
    expect((await client.closed).code).toBe(CLOSE_USER_ID_REQUIRED);
    const empty = connect(processA, "?userId=&token=x");
    expect((await empty.closed).code).toBe(CLOSE_USER_ID_REQUIRED);
    expect(client.frames).toEqual([]);
  });

  it("closes with 4003 without any identity", async () => {
    const user = await socketUser();
    const client = connect(processA, `?userId=${user.id}`);
    expect(await client.closed).toEqual({
      code: CLOSE_FORBIDDEN,
      reason: "no valid session or ticket for this userId",
    });
    expect(client.frames).toEqual([]);
  });

  it("closes with 4003 for a ticket of another user", async () => {
    const [owner, other] = [await socketUser(), await socketUser()];
    const ticket = ticketFor(other.id, clock.now().getTime() + 60_000);
    const client = connect(processA, `?userId=${owner.id}&token=${ticket}`);
    expect((await client.closed).code).toBe(CLOSE_FORBIDDEN);
  });

  it("closes with 4003 for an expired ticket, and accepts it until it expires", async () => {
    const user = await socketUser();
    const ticket = ticketFor(user.id, clock.now().getTime() + PERMISSION_TICKET_TTL_MS);
    clock.advance(PERMISSION_TICKET_TTL_MS - 1);
    const early = connect(processA, `?userId=${user.id}&token=${ticket}`);
    await early.waitFor((frame) => frame.type === "connected");
    clock.advance(1);
    const late = connect(processA, `?userId=${user.id}&token=${ticket}`);
    expect((await late.closed).code).toBe(CLOSE_FORBIDDEN);
    early.close();
  });

  it("closes with 4003 for a bad signature, another key, or a malformed ticket", async () => {
    const user = await socketUser();
    const expires = clock.now().getTime() + 60_000;
    const good = ticketFor(user.id, expires);
    const flipped = `${good.slice(0, -1)}${good.endsWith("0") ? "1" : "0"}`;
    const otherKey = ticketFor(user.id, expires, "not-the-shared-secret");
    const longer = good.replace(`.${expires}.`, `.${expires + 60_000}.`);
    for (const token of [flipped, otherKey, longer, "garbage", ""]) {
      const client = connect(processA, `?userId=${user.id}&token=${encodeURIComponent(token)}`);
      expect((await client.closed).code).toBe(CLOSE_FORBIDDEN);
    }
  });

  it("accepts the web's session cookie of the user, refuses another user's or an expired one", async () => {
    const [user, other] = [await socketUser(), await socketUser()];
    const client = connect(processA, `?userId=${user.id}`, {
      cookie: `a=b; ${SESSION_COOKIE}=${user.sessionToken}`,
    });
    expect(await client.waitFor((frame) => frame.type === "connected")).toEqual({
      type: "connected",
      userId: user.id,
      timestamp: clock.now().getTime(),
    });
    const foreign = connect(processA, `?userId=${user.id}`, {
      cookie: `${SESSION_COOKIE}=${other.sessionToken}`,
    });
    expect((await foreign.closed).code).toBe(CLOSE_FORBIDDEN);
    await processA.database.db
      .update(sessions)
      .set({ expiresAt: new Date(clock.now().getTime() - 1) })
      .where(eq(sessions.userId, user.id));
    const expired = connect(processA, `?userId=${user.id}`, {
      cookie: `${SESSION_COOKIE}=${user.sessionToken}`,
    });
    expect((await expired.closed).code).toBe(CLOSE_FORBIDDEN);
    client.close();
  });

  it("a ticket opens a socket only while the session it was issued to lives", async () => {
    const user = await socketUser();
    const ticket = ticketFor(user.id, clock.now().getTime() + PERMISSION_TICKET_TTL_MS);
    await processA.database.db.delete(sessions).where(eq(sessions.id, user.sessionId));
    const client = connect(processA, `?userId=${user.id}&token=${ticket}`);
    expect((await client.closed).code).toBe(CLOSE_FORBIDDEN);
    expect(client.frames).toEqual([]);
  });

  it("a socket whose session ended (sign-out) decides nothing and is closed with 4003, by ticket or by cookie", async () => {
    for (const proof of ["ticket", "cookie"] as const) {
      const user = await socketUser();
      const client =
        proof === "ticket"
          ? await connectAs(processA, user.id)
          : connect(processA, `?userId=${user.id}`, { cookie: `${SESSION_COOKIE}=${user.sessionToken}` });
      await client.waitFor((frame) => frame.type === "connected");
      const requestId = await classifyOn(processB, user.id, "npm install left-pad");
      await client.waitFor((frame) => frame.type === "permission_request" && frame.id === requestId);
      // Sign-out deletes the session row (web/lib/sessions/service.ts deleteSession).
      await processA.database.db.delete(sessions).where(eq(sessions.id, user.sessionId));
      client.send({ type: "decision", requestId, decision: "approve" });
      expect(await client.closed, proof).toEqual({
        code: CLOSE_FORBIDDEN,
        reason: "the session of this socket has ended",
      });
      expect(client.ofType("decision_ack")).toEqual([]);
      expect(await statusOf(requestId)).toMatchObject({ status: "pending", decision: null });
    }
  });

  it("a socket whose session ended is closed at its next heartbeat, without sending anything", async () => {
    const beating = await startProcess("backend-session-heartbeat", 40);
    try {
      const user = await socketUser();
      const client = await connectAs(beating, user.id);
      await beating.database.db.delete(sessions).where(eq(sessions.id, user.sessionId));
      expect(await client.closed).toEqual({
        code: CLOSE_FORBIDDEN,
        reason: "the session of this socket has ended",
      });
    } finally {
      await beating.close();
    }
  });

  it("leaves other paths to the next upgrade handler", async () => {
    const other = new Client(`${processA.wsUrl}/ws/other?userId=x`);
    const closed = await other.closed;
    expect(closed.code).toBe(1006); // the test server destroys upgrades nobody handled
  });
});

describe("messages", () => {
  it("answers ping with pong, and bad or unknown messages with error", async () => {
    const user = await socketUser();
    const client = await connectAs(processA, user.id);
    expect(client.frames[0]).toEqual({
      type: "connected",
      userId: user.id,
      timestamp: clock.now().getTime(),
    });
    client.send({ type: "ping" });
    expect(await client.waitFor((frame) => frame.type === "pong")).toEqual({
      type: "pong",
      timestamp: clock.now().getTime(),
    });
    client.send("{not json");
    client.send("[1, 2]");
    client.send({ type: "subscribe" });
    client.send({ type: "decision", requestId: "perm_1_x", decision: "maybe" });
    client.send({ type: "decision", decision: "approve" });
    client.send({ type: "ping" });
    await vi.waitFor(() => expect(client.ofType("pong")).toHaveLength(2));
    expect(client.ofType("error")).toEqual([
      { type: "error", message: "message is not valid JSON" },
      { type: "error", message: "message must be a JSON object with a type" },
      { type: "error", message: "unknown message type: subscribe" },
      { type: "error", message: "decision must be approve, reject or approve_always", requestId: "perm_1_x" },
      { type: "error", message: "requestId is required" },
    ]);
    client.close();
  });

  it("sends a heartbeat on the (injected) interval", async () => {
    const beating = await startProcess("backend-heartbeat", 40);
    try {
      const user = await socketUser();
      const client = await connectAs(beating, user.id);
      await vi.waitFor(() => expect(client.ofType("heartbeat").length).toBeGreaterThanOrEqual(2), {
        timeout: 10_000,
        interval: 10,
      });
      expect(client.ofType("heartbeat")[0]).toEqual({ type: "heartbeat", timestamp: clock.now().getTime() });
      // The client answers the protocol pings, so it is kept.
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
      client.close();
    } finally {
      await beating.close();
    }
  });

  it("records a decision like the REST endpoint and acknowledges it once", async () => {
    const user = await socketUser();
    const client = await connectAs(processA, user.id);
    const request = await createPermissionRequest(processA.database.db, {
      prefix: "perm",
      agentId: "agt_1",
      userId: user.id,
      toolName: "bash",
      toolInput: { command: "npm install left-pad" },
      tier: "dangerous",
      reason: "package install",
    });
    client.send({ type: "decision", requestId: request.id, decision: "approve_always" });
    const ack = await client.waitFor((frame) => frame.type === "decision_ack");
    expect(ack).toEqual({
      type: "decision_ack",
      requestId: request.id,
      decision: "approve_always",
      timestamp: expect.any(Number),
    });
    expect(await statusOf(request.id)).toMatchObject({ status: "approved", decision: "approve_always" });
    // The bus echo of this decision came before this later event, and was not sent a second time.
    const later = await classifyOn(processB, user.id, "curl -X POST https://example.com");
    await client.waitFor((frame) => frame.type === "permission_request" && frame.id === later);
    expect(client.ofType("decision_ack")).toHaveLength(1);

    // Already decided, missing, or another user's: error, nothing changes.
    client.send({ type: "decision", requestId: request.id, decision: "reject" });
    const other = await socketUser();
    const foreign = await classifyOn(processA, other.id, "pip install leftpad");
    client.send({ type: "decision", requestId: foreign, decision: "approve" });
    client.send({ type: "decision", requestId: "perm_0_missing", decision: "reject" });
    await vi.waitFor(() => expect(client.ofType("error")).toHaveLength(3));
    // The three are decided concurrently, so their answers come in any order.
    expect(client.ofType("error")).toEqual(
      expect.arrayContaining(
        [request.id, foreign, "perm_0_missing"].map((requestId) => ({
          type: "error",
          message: "permission request not found",
          requestId,
        })),
      ),
    );
    expect(await statusOf(request.id)).toMatchObject({ status: "approved", decision: "approve_always" });
    expect(await statusOf(foreign)).toMatchObject({ status: "pending", decision: null });
    client.close();
  });
});

describe("two backend processes on one database", () => {
  it("a socket on A receives a request classified on B, and B sees the decision made on A", async () => {
    const user = await socketUser();
    const onA = await connectAs(processA, user.id);
    const alsoOnB = await connectAs(processB, user.id);
    const requestId = await classifyOn(processB, user.id, "pip install requests");
    const pushed = await onA.waitFor((frame) => frame.type === "permission_request");
    expect(pushed).toEqual({
      type: "permission_request",
      id: requestId,
      command: "pip install requests",
      tier: "dangerous",
      reason: expect.any(String),
      agentId: agentOf(user.id),
    });
    expect((pushed.reason as string).length).toBeGreaterThan(0);
    expect(await alsoOnB.waitFor((frame) => frame.type === "permission_request")).toEqual(pushed);

    onA.send({ type: "decision", requestId, decision: "reject" });
    expect(await onA.waitFor((frame) => frame.type === "decision_ack")).toMatchObject({
      requestId,
      decision: "reject",
    });
    // Process B's bus carried the decision, its socket of the same user was told, and its database agrees.
    const seenByB = await vi.waitFor(() => {
      const event = processB.events.find((e) => e.type === "decision" && e.requestId === requestId);
      if (!event) throw new Error("B has not seen the decision yet");
      return event;
    });
    expect(seenByB).toMatchObject({
      type: "decision",
      userId: user.id,
      requestId,
      decision: "reject",
      status: "rejected",
    });
    expect(await alsoOnB.waitFor((frame) => frame.type === "decision_ack")).toMatchObject({
      type: "decision_ack",
      requestId,
      decision: "reject",
    });
    expect(await statusOf(requestId)).toMatchObject({ status: "rejected", decision: "reject" });
    onA.close();
    alsoOnB.close();
  });

  it("a user never receives another user's requests or decisions, on any process", async () => {
    const [alice, bob] = [await socketUser(), await socketUser()];
    const aliceOnA = await connectAs(processA, alice.id);
    const bobOnA = await connectAs(processA, bob.id);
    const bobOnB = await connectAs(processB, bob.id);
    const aliceRequest = await classifyOn(processB, alice.id, "docker run --rm alpine");
    await aliceOnA.waitFor((frame) => frame.type === "permission_request" && frame.id === aliceRequest);
    aliceOnA.send({ type: "decision", requestId: aliceRequest, decision: "approve" });
    await aliceOnA.waitFor((frame) => frame.type === "decision_ack");
    await vi.waitFor(() => {
      if (!processA.events.some((e) => e.type === "decision" && e.requestId === aliceRequest))
        throw new Error();
    });
    // Published after Alice's request and decision: Bob's sockets hold it only after those would have arrived.
    const bobRequest = await classifyOn(processA, bob.id, "git push origin main");
    for (const socket of [bobOnA, bobOnB]) {
      await socket.waitFor((frame) => frame.type === "permission_request" && frame.id === bobRequest);
      expect(socket.frames.map((frame) => frame.type)).toEqual(["connected", "permission_request"]);
    }
    expect(aliceOnA.frames.some((frame) => frame.id === bobRequest)).toBe(false);
    for (const socket of [aliceOnA, bobOnA, bobOnB]) socket.close();
  });

  it("counts its own sockets, and closes them with 1001 on close()", async () => {
    const own = await startProcess("backend-c");
    try {
      const user = await socketUser();
      const [first, second] = [await connectAs(own, user.id), await connectAs(own, user.id)];
      await connectAs(processA, user.id);
      expect(own.upgrade.socketCount()).toBe(2);
      first.close();
      await first.closed;
      await vi.waitFor(() => expect(own.upgrade.socketCount()).toBe(1));
      own.upgrade.close();
      expect((await second.closed).code).toBe(1001);
      await vi.waitFor(() => expect(own.upgrade.socketCount()).toBe(0));
    } finally {
      await own.close();
    }
  });
});
