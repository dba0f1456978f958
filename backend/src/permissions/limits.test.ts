/**
 * Issue #12, item 13: pending requests expire (PERMISSION_PENDING_TTL_SECONDS after they were made), an
 * agent has at most 100 live pending requests, `GET /api/permissions` pages, and an agent holds at most 10
 * waiting decision long-polls. Real PostgreSQL and bus; time moves by an injected clock, transition by
 * transition.
 */
import {
  createLogger,
  ManualClock,
  newId,
  PERMISSION_TICKET_TTL_MS,
  sealGatewayToken,
  signPermissionTicket,
} from "@svc/common";
import { agents, permissionRequests, sessions } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { generateGatewayToken } from "../agents/tokens";
import { errorMapper, notFound } from "../http/errors";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  HMAC_SECRET,
  headersFor,
  type ServedApp,
  serveApp,
  testConfig,
  testDatabase,
} from "../testing";
import { createPermissionBus } from "./bus";
import { hookRoutes } from "./hooks";
import { permissionRoutes } from "./routes";
import { MAX_PENDING_PER_AGENT } from "./service";
import { permissionSocketUpgrade } from "./socket";
import { createPermissionRequest } from "./store";
import { AgentWaits, MAX_WAITS_PER_AGENT } from "./waits";

const TTL_SECONDS = 60;
const TTL_MS = TTL_SECONDS * 1000;
const logger = createLogger("permission-limits-test", "silent");
const config = testConfig({ DATA_ENCRYPTION_KEY, PERMISSION_PENDING_TTL_SECONDS: String(TTL_SECONDS) });
const database = testDatabase();
const bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
const clock = new ManualClock("2026-06-01T12:00:00.000Z");
const waits = new AgentWaits();

const app = express();
app.use(hookRoutes({ db: database.db, bus, config, logger, clock, waits }));
app.use(permissionRoutes({ db: database.db, bus, config, logger, clock }));
app.use(notFound);
app.use(errorMapper(logger));
const upgrade = permissionSocketUpgrade({ db: database.db, bus, config, logger, clock });
let server: ServedApp;
let baseUrl: string;

beforeAll(async () => {
  await bus.start();
  server = await serveApp(app);
  server.server.on("upgrade", (req, socket, head) => {
    if (!upgrade(req, socket, head)) socket.destroy();
  });
  baseUrl = server.url;
});
afterAll(async () => {
  upgrade.close();
  await server.close();
  await bus.stop();
});

const DANGEROUS = { tool_name: "bash", tool_input: { command: "npm install left-pad" } };

interface Owner {
  userId: string;
  agentId: string;
  token: string;
  headers: Record<string, string>;
}

async function owner(): Promise<Owner> {
  const user = await createUser({ name: "U" });
  const { agentId, token } = await agentOf(user.id);
  return { userId: user.id, agentId, token, headers: headersFor(user) };
}

async function agentOf(userId: string): Promise<{ agentId: string; token: string }> {
  const token = generateGatewayToken();
  const agentId = newId("agt");
  await database.db.insert(agents).values({
    id: agentId,
    userId,
    name: "A",
    gatewayTokenEncrypted: sealGatewayToken(DATA_ENCRYPTION_KEY, token),
  });
  return { agentId, token };
}

const hookClassify = (token: string, body: object = DANGEROUS) =>
  request(app)
    .post("/api/hooks/classify")
    .set({ authorization: `Bearer ${token}` })
    .send(body);
const poll = (token: string, id: string, wait = 0) =>
  request(app)
    .get(`/api/hooks/decision/${id}?wait=${wait}`)
    .set({ authorization: `Bearer ${token}` });
const list = (who: Owner, query = "") => request(app).get(`/api/permissions${query}`).set(who.headers);
const decide = (who: Owner, requestId: string, decision = "approve") =>
  request(app).post("/api/permissions").set(who.headers).send({ requestId, decision });

async function rowOf(id: string) {
  const [row] = await database.db.select().from(permissionRequests).where(eq(permissionRequests.id, id));
  return row;
}

async function pendingRowsOf(agentId: string): Promise<number> {
  const rows = await database.db
    .select({ id: permissionRequests.id })
    .from(permissionRequests)
    .where(and(eq(permissionRequests.agentId, agentId), eq(permissionRequests.status, "pending")));
  return rows.length;
}

/** `count` pending requests of the agent made at the clock's time (plus `offsetMs` each, if given). */
async function seed(
  who: { userId: string; agentId: string },
  count: number,
  offsetMs = 0,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const row = await createPermissionRequest(database.db, {
      prefix: "hook",
      agentId: who.agentId,
      userId: who.userId,
      toolName: "bash",
      toolInput: { command: `npm install pkg-${i}` },
      tier: "dangerous",
      reason: "package install: npm install",
      now: new Date(clock.now().getTime() + i * offsetMs),
    });
    ids.push(row.id);
  }
  return ids;
}

let carol: Owner;
let dave: Owner;
let erin: Owner;
let fay: Owner;
let gus: Owner;
let hal: Owner;
let ivy: Owner;
let jo: Owner;
let kim: Owner;
let other: Owner;
let lee: Owner;
let max: Owner;
/** A second agent of gus. */
let gusOther: { agentId: string; token: string };
/** Every agent exists before the first token lookup (the token store rescans at most every 5 s). */
beforeAll(async () => {
  [carol, dave, erin, fay, gus, hal, ivy, jo, kim, other, lee, max] = await Promise.all(
    Array.from({ length: 12 }, () => owner()),
  );
  gusOther = await agentOf(gus.userId);
});

const idsOf = (body: { pending: Array<{ id: string }> }) => body.pending.map((p) => p.id);

describe("expiry of pending requests (PERMISSION_PENDING_TTL_SECONDS)", () => {
  it("pending until the TTL has passed; then not listed, not decidable, a denial to the hook", async () => {
    const made = clock.now().getTime();
    const created = await hookClassify(carol.token);
    expect(created.body).toMatchObject({ allow: false, tier: "dangerous", requestId: expect.any(String) });
    const id: string = created.body.requestId;
    expect((await rowOf(id))?.timestamp).toBe(made);

    // One millisecond before the TTL: still pending everywhere.
    clock.set(made + TTL_MS - 1);
    expect(idsOf((await list(carol)).body)).toEqual([id]);
    expect((await poll(carol.token, id)).body).toEqual({ status: "pending", allow: false });

    // At the TTL: expired.
    clock.set(made + TTL_MS);
    expect((await list(carol)).body).toEqual({ pending: [], nextCursor: null });
    expect((await list(carol, `?agentId=${carol.agentId}`)).body.pending).toEqual([]);
    expect((await poll(carol.token, id)).body).toEqual({ status: "expired", allow: false });
    // A long-poll on an expired request does not wait: it answers the denial at once.
    expect((await poll(carol.token, id, 30)).body).toEqual({ status: "expired", allow: false });
    expect(waits.count(carol.agentId)).toBe(0);
    for (const decision of ["approve", "reject", "approve_always"]) {
      const res = await decide(carol, id, decision);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "permission_not_found", message: "permission request not found" });
    }
    expect(await rowOf(id)).toMatchObject({ status: "pending", decision: null, decidedAt: null });

    // The agent's next dangerous call sweeps it: stored as rejected without a decision, still "expired".
    const next = await hookClassify(carol.token);
    expect(next.body.requestId).toEqual(expect.any(String));
    expect(await rowOf(id)).toMatchObject({ status: "rejected", decision: null, decidedAt: clock.now() });
    expect((await poll(carol.token, id)).body).toEqual({ status: "expired", allow: false });
    expect((await decide(carol, id)).status).toBe(404);
    expect(idsOf((await list(carol)).body)).toEqual([next.body.requestId]);
  });

  it("a decision made before the TTL stands after it", async () => {
    const id: string = (await hookClassify(dave.token)).body.requestId;
    clock.advance(TTL_MS - 1);
    expect((await decide(dave, id)).body).toMatchObject({ success: true, requestId: id });
    clock.advance(TTL_MS);
    expect((await poll(dave.token, id)).body).toEqual({ status: "approved", allow: true });
    expect(await rowOf(id)).toMatchObject({ status: "approved", decision: "approve" });
  });

  it("a long-poll waiting when its request expires answers expired, and lets go", async () => {
    const made = clock.now().getTime();
    const id: string = (await hookClassify(erin.token)).body.requestId;
    // 20 ms of real time before the request's end; the poll asks to wait 30 s.
    clock.set(made + TTL_MS - 20);
    const res = await poll(erin.token, id, 30);
    expect(res.body).toEqual({ status: "expired", allow: false });
    expect(waits.count(erin.agentId)).toBe(0);
  });

  it("REST-made requests expire the same way", async () => {
    const made = clock.now().getTime();
    const res = await request(app)
      .post("/api/permissions/classify")
      .set(fay.headers)
      .send({ agentId: fay.agentId, toolName: "bash", toolInput: { command: "npm install x" } });
    const id: string = res.body.requestId;
    expect(id).toMatch(/^perm_/);
    clock.set(made + TTL_MS);
    expect((await list(fay)).body.pending).toEqual([]);
    expect((await decide(fay, id, "reject")).status).toBe(404);
  });
});

describe("the classifier's protected paths reach the routes", () => {
  it("another agent's directory (LOCAL_AGENTS_DIR) is dangerous; the agent's own is not", async () => {
    const own = `${config.LOCAL_AGENTS_DIR}/${lee.agentId}/state/workspace/notes.txt`;
    const foreign = `${config.LOCAL_AGENTS_DIR}/${max.agentId}/service.json`;
    const read = (path: string) => hookClassify(lee.token, { tool_name: "read", tool_input: { path } });
    expect((await read(own)).body).toEqual({ allow: true, tier: "safe", reason: "file read" });
    const refused = await read(foreign);
    expect(refused.body).toMatchObject({ allow: false, tier: "dangerous" });
    expect(refused.body.reason).toMatch(/^platform state read: \//);
    expect(refused.body.requestId).toEqual(expect.any(String));
    expect((await decide(lee, refused.body.requestId, "reject")).status).toBe(200);
    const shell = await hookClassify(lee.token, {
      tool_name: "bash",
      tool_input: { command: "cat .data/secrets.json" },
    });
    expect(shell.body).toMatchObject({
      allow: false,
      tier: "dangerous",
      reason: "platform state read: .data/secrets.json",
    });
    expect((await decide(lee, shell.body.requestId, "reject")).status).toBe(200);
  });

  it("the agent's workspace reaches the routes: its commands' paths and its writes are judged there", async () => {
    const call = (tool_name: string, tool_input: Record<string, unknown>) =>
      hookClassify(lee.token, { tool_name, tool_input });
    // The working directory is `<LOCAL_AGENTS_DIR>/<agent>/state/workspace`.
    expect((await call("bash", { command: "cat notes.txt" })).body).toMatchObject({ allow: true });
    expect((await call("write", { path: "notes.txt", content: "x" })).body).toMatchObject({ allow: true });
    for (const [tool, input, reason] of [
      ["bash", { command: "cat ../../service.json" }, /^platform state read: cat \.\.\/\.\.\/service\.json/],
      ["bash", { command: "cat ../../../*/service.json" }, /^path outside the agent's directory/],
      ["write", { path: "~/.bashrc", content: "x" }, /^write outside the agent's workspace/],
      ["write", { path: ".git/config", content: "x" }, /^configuration file write/],
    ] as const) {
      const refused = await call(tool, input);
      expect(refused.body).toMatchObject({ allow: false, tier: "dangerous" });
      expect(refused.body.reason).toMatch(reason);
      expect((await decide(lee, refused.body.requestId, "reject")).status).toBe(200);
    }
  });
});

describe("expiry over the WebSocket", () => {
  it("a decision on a request older than the configured TTL is refused; a live one is acknowledged", async () => {
    // The socket decides by the system clock, with PERMISSION_PENDING_TTL_SECONDS (60 s here, not 330 s).
    const made = (now: number) =>
      createPermissionRequest(database.db, {
        prefix: "hook",
        agentId: kim.agentId,
        userId: kim.userId,
        toolName: "bash",
        toolInput: { command: "npm install z" },
        tier: "dangerous",
        reason: "package install: npm install",
        now: new Date(now),
      });
    const expired = await made(Date.now() - TTL_MS - 1_000);
    const live = await made(Date.now());
    // Tickets are issued for a live session of the user.
    const sessionId = newId("ses");
    await database.db.insert(sessions).values({
      id: sessionId,
      tokenHash: `hash-of-${sessionId}`,
      userId: kim.userId,
      expiresAt: new Date(clock.now().getTime() + 24 * 60 * 60 * 1000),
    });
    const ticket = signPermissionTicket(
      HMAC_SECRET,
      kim.userId,
      sessionId,
      clock.now().getTime() + PERMISSION_TICKET_TTL_MS,
    );
    const ws = new WebSocket(
      `${baseUrl.replace("http", "ws")}/ws/permissions?userId=${kim.userId}&token=${ticket}`,
    );
    const frames: Array<Record<string, unknown>> = [];
    const next = (type: string) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const check = () => {
          const found = frames.find((frame) => frame.type === type);
          if (found) {
            frames.splice(frames.indexOf(found), 1);
            resolve(found);
          } else ws.once("message", check);
        };
        check();
      });
    ws.on("message", (data) => frames.push(JSON.parse(data.toString())));
    await next("connected");
    ws.send(JSON.stringify({ type: "decision", requestId: expired.id, decision: "approve" }));
    expect(await next("error")).toEqual({
      type: "error",
      message: "permission request not found",
      requestId: expired.id,
    });
    ws.send(JSON.stringify({ type: "decision", requestId: live.id, decision: "approve" }));
    expect(await next("decision_ack")).toMatchObject({ requestId: live.id, decision: "approve" });
    expect(await rowOf(expired.id)).toMatchObject({ status: "pending", decision: null });
    ws.close();
  });
});

describe(`at most ${MAX_PENDING_PER_AGENT} pending requests per agent`, () => {
  it("the 101st dangerous call is refused with a reason and no record; room comes back", async () => {
    await seed(gus, MAX_PENDING_PER_AGENT - 1);
    const hundredth = await hookClassify(gus.token);
    expect(hundredth.body).toMatchObject({ allow: false, tier: "dangerous", requestId: expect.any(String) });
    expect(await pendingRowsOf(gus.agentId)).toBe(MAX_PENDING_PER_AGENT);

    const refused = await hookClassify(gus.token);
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      allow: false,
      tier: "dangerous",
      reason:
        "package install: npm install; not queued: this agent already has 100 pending permission requests (decide some, or wait for them to expire)",
    });
    const viaRest = await request(app)
      .post("/api/permissions/classify")
      .set(gus.headers)
      .send({ agentId: gus.agentId, toolName: "bash", toolInput: { command: "npm install y" } });
    expect(viaRest.body).toMatchObject({ allow: false, tier: "dangerous" });
    expect(viaRest.body.requestId).toBeUndefined();
    expect(await pendingRowsOf(gus.agentId)).toBe(MAX_PENDING_PER_AGENT);
    // Safe calls are not affected, nor is another agent of the same user.
    expect(
      (await hookClassify(gus.token, { tool_name: "bash", tool_input: { command: "ls" } })).body,
    ).toMatchObject({
      allow: true,
    });
    expect((await hookClassify(gusOther.token)).body.requestId).toEqual(expect.any(String));

    // Deciding one makes room for one.
    expect((await decide(gus, hundredth.body.requestId, "reject")).status).toBe(200);
    expect((await hookClassify(gus.token)).body.requestId).toEqual(expect.any(String));
    expect((await hookClassify(gus.token)).body.requestId).toBeUndefined();

    // Once they expire, they no longer count: the next call is queued and the old ones swept.
    clock.advance(TTL_MS);
    expect((await hookClassify(gus.token)).body.requestId).toEqual(expect.any(String));
    expect(await pendingRowsOf(gus.agentId)).toBe(1);
  });

  it("concurrent calls never pass the cap together", async () => {
    await seed(hal, MAX_PENDING_PER_AGENT - 3);
    const answers = await Promise.all(Array.from({ length: 8 }, () => hookClassify(hal.token)));
    const queued = answers.filter((res) => typeof res.body.requestId === "string");
    expect(queued).toHaveLength(3);
    expect(answers.every((res) => res.status === 200 && res.body.allow === false)).toBe(true);
    expect(await pendingRowsOf(hal.agentId)).toBe(MAX_PENDING_PER_AGENT);
  });
});

describe("GET /api/permissions pages", () => {
  it("oldest first, `limit` per page, `nextCursor` until the last page; expired ones left out", async () => {
    const start = clock.now().getTime();
    const expired = await seed(ivy, 1);
    clock.set(start + 1_000);
    // Five live requests, two of them made in the same millisecond (ordered by id then).
    const live = [...(await seed(ivy, 3, 1)), ...(await seed(ivy, 2))].sort((a, b) => {
      const ta = Number(a.split("_")[1]);
      const tb = Number(b.split("_")[1]);
      return ta - tb || (a < b ? -1 : 1);
    });
    clock.set(start + TTL_MS + 500);

    const seen: string[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await list(ivy, query);
      expect(res.status).toBe(200);
      seen.push(...idsOf(res.body));
      pages.push(res.body.pending.length);
      cursor = res.body.nextCursor;
      if (cursor !== null) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    } while (cursor !== null);
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual(live);
    expect(seen).not.toContain(expired[0]);

    // A page that ends exactly at the last request has no next cursor.
    const exact = await list(ivy, "?limit=5");
    expect(idsOf(exact.body)).toEqual(live);
    expect(exact.body.nextCursor).toBeNull();
    // Paging works with the agent filter too; another user's cursor pages nothing of theirs.
    const first = await list(ivy, `?agentId=${ivy.agentId}&limit=4`);
    const rest = await list(ivy, `?agentId=${ivy.agentId}&limit=4&cursor=${first.body.nextCursor}`);
    expect([...idsOf(first.body), ...idsOf(rest.body)]).toEqual(live);
    expect((await list(other, `?cursor=${first.body.nextCursor}`)).body).toEqual({
      pending: [],
      nextCursor: null,
    });
  });

  it("50 by default, 100 at most", async () => {
    const ids = await seed(jo, 101, 1);
    const first = await list(jo);
    expect(first.body.pending).toHaveLength(50);
    expect(idsOf(first.body)).toEqual(ids.slice(0, 50));
    const most = await list(jo, "?limit=100");
    expect(idsOf(most.body)).toEqual(ids.slice(0, 100));
    const last = await list(jo, `?limit=100&cursor=${most.body.nextCursor}`);
    expect(last.body).toEqual({ pending: [expect.objectContaining({ id: ids[100] })], nextCursor: null });
  });

  it("400 for a bad limit or cursor", async () => {
    const cases: Array<[string, string]> = [
      ["?limit=0", "limit: must be a whole number from 1 to 100"],
      ["?limit=101", "limit: must be a whole number from 1 to 100"],
      ["?limit=abc", "limit: must be a whole number from 1 to 100"],
      ["?limit=1&limit=2", "limit: must be a whole number from 1 to 100"],
      ["?cursor=nope!", "cursor: is not a cursor of this list"],
      [`?cursor=${Buffer.from("x.y").toString("base64url")}`, "cursor: is not a cursor of this list"],
      ["?cursor=a&cursor=b", "cursor: must be a single string"],
    ];
    for (const [query, message] of cases) {
      const res = await list(kim, query);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
  });
});

describe(`at most ${MAX_WAITS_PER_AGENT} waiting decision long-polls per agent`, () => {
  async function waitingCount(agentId: string, count: number): Promise<void> {
    await expect.poll(() => waits.count(agentId), { interval: 5 }).toBe(count);
  }

  it("the 11th waiting poll is 429; one that ends makes room", async () => {
    const ids = await seed(lee, MAX_WAITS_PER_AGENT + 1);
    const get = (id: string, wait: number) =>
      fetch(`${baseUrl}/api/hooks/decision/${id}?wait=${wait}`, {
        headers: { authorization: `Bearer ${lee.token}` },
      }).then(async (res) => ({ status: res.status, body: await res.json() }));
    const polls = ids.slice(0, MAX_WAITS_PER_AGENT).map((id) => get(id, 50));
    await waitingCount(lee.agentId, MAX_WAITS_PER_AGENT);

    const eleventh = await get(ids[MAX_WAITS_PER_AGENT], 50);
    expect(eleventh).toEqual({
      status: 429,
      body: {
        error: "too_many_waits",
        message: "this agent already has 10 decision polls waiting; poll again once one has ended",
      },
    });
    // A poll that does not wait is still answered, and another agent is not affected.
    expect(await get(ids[MAX_WAITS_PER_AGENT], 0)).toEqual({
      status: 200,
      body: { status: "pending", allow: false },
    });
    const [maxId] = await seed(max, 1);
    // supertest sends on `then`.
    const maxPoll = poll(max.token, maxId, 50).then((res) => res);
    await waitingCount(max.agentId, 1);

    // Deciding the first request ends its poll; the slot is free again.
    expect((await decide(lee, ids[0])).status).toBe(200);
    expect(await polls[0]).toEqual({ status: 200, body: { status: "approved", allow: true } });
    await waitingCount(lee.agentId, MAX_WAITS_PER_AGENT - 1);
    const late = get(ids[MAX_WAITS_PER_AGENT], 50);
    await waitingCount(lee.agentId, MAX_WAITS_PER_AGENT);

    for (const id of ids.slice(1)) expect((await decide(lee, id, "reject")).status).toBe(200);
    for (const answer of await Promise.all([...polls.slice(1), late])) {
      expect(answer).toEqual({ status: 200, body: { status: "rejected", allow: false } });
    }
    expect(waits.count(lee.agentId)).toBe(0);
    expect((await decide(max, maxId)).status).toBe(200);
    expect((await maxPoll).body).toEqual({ status: "approved", allow: true });
    expect(waits.count(max.agentId)).toBe(0);
  });
});
