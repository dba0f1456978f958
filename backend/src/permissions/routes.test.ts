import { randomBytes } from "node:crypto";
import { createLogger, newId, sealGatewayToken, sha256Hex } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { agents, apiKeys, permissionRequests } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateGatewayToken } from "../agents/tokens";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  headersFor,
  INTERNAL_API_KEY,
  serveApp,
  testApp,
  testConfig,
  testDatabase,
  testListener,
} from "../testing";
import { createPermissionBus, type PermissionBus, type PermissionEvent } from "./bus";
import { classifyToolCall } from "./classifier/index";
import { decidePermission, listPendingPermissions, permissionJson } from "./store";

const logger = createLogger("permissions-test", "silent");
const config = testConfig({ DATA_ENCRYPTION_KEY });
const database = testDatabase();
const bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });

/** Every event this process heard on the bus, and a way to wait for one. */
const heard: PermissionEvent[] = [];
const waiting: Array<{ match: (e: PermissionEvent) => boolean; resolve: () => void }> = [];
bus.subscribe((event) => {
  heard.push(event);
  for (const w of [...waiting]) if (w.match(event)) w.resolve();
});
function hear(match: (e: PermissionEvent) => boolean): Promise<PermissionEvent> {
  const found = heard.find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) =>
    waiting.push({ match, resolve: () => resolve(heard.find(match) as PermissionEvent) }),
  );
}

/**
 * The app's bus, as the app sees it: the real bus, with the subscriptions the routes make counted (so a
 * test knows when a long-poll is waiting and when it let go).
 */
const subscriptions = { active: 0, added: 0 };
const watchedBus: PermissionBus = {
  start: () => bus.start(),
  stop: () => bus.stop(),
  publish: (event) => bus.publish(event),
  subscribe(listener) {
    const unsubscribe = bus.subscribe(listener);
    subscriptions.active++;
    subscriptions.added++;
    let done = false;
    return () => {
      if (!done) subscriptions.active--;
      done = true;
      unsubscribe();
    };
  },
};
// As server.ts serves it: the classify hook ahead of Express, everything else through the app.
const app = testListener({ config, logger, permissionBus: watchedBus });

beforeAll(() => bus.start());
afterAll(() => bus.stop());

// A file of the agent's own workspace (issue #24: a read outside the agent's directory is dangerous).
const SAFE = { toolName: "read", toolInput: { path: "notes.txt" } };
const DANGEROUS = { toolName: "bash", toolInput: { command: "npm install left-pad" } };
const DESTRUCTIVE = { toolName: "bash", toolInput: { command: "rm -rf /" } };

interface Owner {
  userId: string;
  agentId: string;
  token: string;
  apiKey: string;
  headers: Record<string, string>;
}

function rawApiKey(): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return `svc_${[...randomBytes(40)].map((b) => alphabet[b % 62]).join("")}`;
}

/** A user with one agent (with a gateway token) and one API key. */
async function owner(): Promise<Owner> {
  const user = await createUser({ name: "U" });
  const userId = user.id;
  const token = generateGatewayToken();
  const agentId = newId("agt");
  await database.db.insert(agents).values({
    id: agentId,
    userId,
    name: "A",
    gatewayTokenEncrypted: sealGatewayToken(DATA_ENCRYPTION_KEY, token),
  });
  const apiKey = rawApiKey();
  await database.db.insert(apiKeys).values({
    id: newId("key"),
    userId,
    name: "k",
    prefix: apiKey.slice(0, 10),
    keyHash: sha256Hex(apiKey),
  });
  return { userId, agentId, token, apiKey, headers: headersFor(user) };
}

async function rowCount(): Promise<number> {
  return (await database.db.select({ id: permissionRequests.id }).from(permissionRequests)).length;
}

async function rowOf(id: string) {
  const [row] = await database.db.select().from(permissionRequests).where(eq(permissionRequests.id, id));
  return row;
}

/** The requests in the list's order: by timestamp (Unix ms), then by id. */
async function oldestFirst(ids: string[]): Promise<string[]> {
  const rows = await Promise.all(
    ids.map(async (id) => ({ id, timestamp: (await rowOf(id))?.timestamp ?? 0 })),
  );
  return rows.sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1)).map((r) => r.id);
}

function expected(call: { toolName: string; toolInput: Record<string, unknown> }) {
  const { tier, reason } = classifyToolCall(call.toolName, call.toolInput);
  return { tier, reason };
}

let alice: Owner;
let bob: Owner;
beforeAll(async () => {
  alice = await owner();
  bob = await owner();
});

describe("the classifier tiers these tests rely on (spec classification rules)", () => {
  it("read is safe, npm install is dangerous, rm -rf / is destructive", () => {
    expect(expected(SAFE).tier).toBe("safe");
    expect(expected(DANGEROUS).tier).toBe("dangerous");
    expect(expected(DESTRUCTIVE).tier).toBe("destructive");
  });
});

describe("POST /api/permissions/classify", () => {
  const classify = (body: object, headers: Record<string, string>) =>
    request(app).post("/api/permissions/classify").set(headers).send(body);

  it("404 for a signed context that names no user, even for an existing agent", async () => {
    const alice = await owner();
    const nobody = headersFor({ id: "", email: "" });
    const before = await rowCount();
    const res = await classify({ agentId: alice.agentId, ...DANGEROUS }, nobody);
    expect(res.status).toBe(404);
    expect(await rowCount()).toBe(before);
  });

  it("safe: allowed, no record; destructive: blocked, no record", async () => {
    const before = await rowCount();
    const safe = await classify({ agentId: alice.agentId, ...SAFE }, alice.headers);
    expect(safe.status).toBe(200);
    expect(safe.body).toEqual({ allow: true, ...expected(SAFE) });
    const destructive = await classify({ agentId: alice.agentId, ...DESTRUCTIVE }, alice.headers);
    expect(destructive.status).toBe(200);
    expect(destructive.body).toEqual({ allow: false, ...expected(DESTRUCTIVE) });
    expect(await rowCount()).toBe(before);
  });

  it("dangerous: a pending perm_ request, announced as permission_request to the user", async () => {
    const res = await classify({ agentId: alice.agentId, ...DANGEROUS }, alice.headers);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ allow: false, ...expected(DANGEROUS), requestId: expect.any(String) });
    const id: string = res.body.requestId;
    expect(id).toMatch(/^perm_\d{13}_[0-9a-z]{10}$/);
    const row = await rowOf(id);
    expect(row).toMatchObject({
      agentId: alice.agentId,
      userId: alice.userId,
      toolName: "bash",
      toolInput: DANGEROUS.toolInput,
      tier: "dangerous",
      reason: expected(DANGEROUS).reason,
      status: "pending",
      decision: null,
      decidedAt: null,
    });
    expect(row?.timestamp).toBe(Number(id.split("_")[1]));
    const event = await hear((e) => e.type === "permission_request" && e.request.id === id);
    expect(event).toEqual({
      type: "permission_request",
      userId: alice.userId,
      request: {
        id,
        command: "npm install left-pad",
        tier: "dangerous",
        reason: expected(DANGEROUS).reason,
        agentId: alice.agentId,
      },
    });
  });

  it("a tool without a command is announced by its name; toolInput defaults to {}", async () => {
    const res = await classify({ agentId: alice.agentId, toolName: "frobnicate" }, alice.headers);
    expect(res.body).toMatchObject({ allow: false, tier: "dangerous" });
    const event = await hear((e) => e.type === "permission_request" && e.request.id === res.body.requestId);
    expect(event.type === "permission_request" && event.request.command).toBe("frobnicate");
    expect((await rowOf(res.body.requestId))?.toolInput).toEqual({});
  });

  it("works with the user's svc_ API key", async () => {
    const res = await classify({ agentId: bob.agentId, ...SAFE }, { authorization: `Bearer ${bob.apiKey}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ allow: true, ...expected(SAFE) });
  });

  it("404 for another user's agent or a missing one, and nothing recorded", async () => {
    const before = await rowCount();
    for (const agentId of [bob.agentId, "agt_missing"]) {
      const res = await classify({ agentId, ...DANGEROUS }, alice.headers);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "agent_not_found", message: "agent not found" });
    }
    expect(await rowCount()).toBe(before);
  });

  it("400 for missing or mistyped fields, nothing recorded", async () => {
    const before = await rowCount();
    const cases: Array<[unknown, string]> = [
      [{ toolName: "bash", toolInput: {} }, "agentId: is required"],
      [{ agentId: alice.agentId, toolInput: {} }, "toolName: is required"],
      [{ agentId: alice.agentId, toolName: 7 }, "toolName: must be a string"],
      [{ agentId: alice.agentId, toolName: "" }, "toolName: must not be empty"],
      [{ agentId: alice.agentId, toolName: "bash", toolInput: "rm -rf /" }, "toolInput: must be an object"],
      [{ agentId: alice.agentId, toolName: "bash", toolInput: ["x"] }, "toolInput: must be an object"],
      [[1, 2], "request body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const res = await classify(body as object, alice.headers);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
    const bad = await request(app)
      .post("/api/permissions/classify")
      .set({ ...alice.headers, "content-type": "application/json" })
      .send("{nope");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_json");
    expect(await rowCount()).toBe(before);
  });
});

describe("bearer of /api/permissions*", () => {
  const targets = [
    () => request(app).get("/api/permissions"),
    () => request(app).post("/api/permissions").send({ requestId: "perm_1_x", decision: "approve" }),
    () =>
      request(app)
        .post("/api/permissions/classify")
        .send({ agentId: "agt_x", ...SAFE }),
  ];

  it("401 without a Bearer header, or with an invalid svc_ key", async () => {
    for (const target of targets) {
      for (const authorization of [undefined, INTERNAL_API_KEY, `Basic ${INTERNAL_API_KEY}`]) {
        const res = await (authorization ? target().set({ authorization }) : target());
        expect(res.status).toBe(401);
        expect(res.body.error).toBe("unauthorized");
      }
      // The real key with its last character changed (to another character, whatever it was).
      const altered = `${alice.apiKey.slice(0, -1)}${alice.apiKey.endsWith("x") ? "y" : "x"}`;
      for (const key of [rawApiKey(), "svc_short", altered]) {
        const res = await target().set({ authorization: `Bearer ${key}` });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: "unauthorized", message: "invalid API key" });
      }
    }
  });

  it("a revoked svc_ key is refused", async () => {
    const carol = await owner();
    await database.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.userId, carol.userId));
    const res = await request(app)
      .get("/api/permissions")
      .set({ authorization: `Bearer ${carol.apiKey}` });
    expect(res.status).toBe(401);
  });

  it("an expired svc_ key is refused (401); a key without the approvals scope is 403 insufficient_scope", async () => {
    const dave = await owner();
    const past = new Date(Date.now() - 1000);
    await database.db.update(apiKeys).set({ expiresAt: past }).where(eq(apiKeys.userId, dave.userId));
    const expired = await request(app)
      .get("/api/permissions")
      .set({ authorization: `Bearer ${dave.apiKey}` });
    expect(expired.status).toBe(401);
    const erin = await owner();
    await database.db
      .update(apiKeys)
      .set({ scopes: ["approvals:read", "files:write"] })
      .where(eq(apiKeys.userId, erin.userId));
    const bearer = { authorization: `Bearer ${erin.apiKey}` };
    expect((await request(app).get("/api/permissions").set(bearer)).status).toBe(200);
    for (const target of targets.slice(1)) {
      const res = await target().set(bearer);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "insufficient_scope",
        message: "this API key does not have the approvals:write scope",
        scope: "approvals:write",
      });
    }
  });

  it("403 when the Bearer is not the internal key", async () => {
    for (const target of targets) {
      for (const key of ["wrong", `${INTERNAL_API_KEY}x`, alice.token]) {
        const res = await target().set({ ...alice.headers, authorization: `Bearer ${key}` });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: "forbidden", message: "invalid internal API key" });
      }
    }
  });

  it("401 when the internal key comes without a valid user-context signature", async () => {
    const missing = await request(app)
      .get("/api/permissions")
      .set({ ...headersFor("internal"), "x-user-id": alice.userId });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe("SIGNATURE_REQUIRED");
    const forged = await request(app)
      .get("/api/permissions")
      .set({ ...alice.headers, "x-user-id": bob.userId });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toBe("INVALID_SIGNATURE");
  });
});

describe("GET /api/permissions and POST /api/permissions", () => {
  async function pendingFor(who: Owner, call = DANGEROUS): Promise<string> {
    const res = await request(app)
      .post("/api/permissions/classify")
      .set(who.headers)
      .send({ agentId: who.agentId, ...call });
    expect(res.body.requestId).toEqual(expect.any(String));
    return res.body.requestId;
  }
  const decide = (headers: Record<string, string>, body: unknown) =>
    request(app)
      .post("/api/permissions")
      .set(headers)
      .send(body as object);

  it("lists only the user's pending requests, in the spec's shape, optionally for one agent", async () => {
    const dave = await owner();
    const first = await pendingFor(dave);
    const second = await pendingFor(dave, { toolName: "bash", toolInput: { command: "git push" } });
    const others = await pendingFor(bob);
    // A second agent of the same user.
    const otherAgent = newId("agt");
    await database.db.insert(agents).values({ id: otherAgent, userId: dave.userId, name: "B" });
    const onOther = await request(app)
      .post("/api/permissions/classify")
      .set(dave.headers)
      .send({ agentId: otherAgent, ...DANGEROUS });

    const res = await request(app).get("/api/permissions").set(dave.headers);
    expect(res.status).toBe(200);
    const ids = res.body.pending.map((p: { id: string }) => p.id);
    // Oldest first, the id breaking a tie: requests made back to back may share a millisecond.
    expect(ids).toEqual(await oldestFirst([first, second, onOther.body.requestId]));
    expect(ids).not.toContain(others);
    const row = await rowOf(first);
    expect(res.body.pending.find((p: { id: string }) => p.id === first)).toEqual({
      id: first,
      agentId: dave.agentId,
      userId: dave.userId,
      toolName: "bash",
      toolInput: { command: "npm install left-pad" },
      tier: "dangerous",
      reason: expected(DANGEROUS).reason,
      timestamp: row?.timestamp,
      status: "pending",
      decision: null,
      decidedAt: null,
    });

    const oneAgent = await request(app).get(`/api/permissions?agentId=${otherAgent}`).set(dave.headers);
    expect(oneAgent.body.pending.map((p: { id: string }) => p.id)).toEqual([onOther.body.requestId]);
    const viaKey = await request(app)
      .get(`/api/permissions?agentId=${dave.agentId}`)
      .set({ authorization: `Bearer ${dave.apiKey}` });
    expect(viaKey.body.pending.map((p: { id: string }) => p.id)).toEqual(await oldestFirst([first, second]));
    // Another user's agent id lists nothing.
    const foreign = await request(app).get(`/api/permissions?agentId=${bob.agentId}`).set(dave.headers);
    expect(foreign.body).toEqual({ pending: [], nextCursor: null });
    const twice = await request(app).get("/api/permissions?agentId=a&agentId=b").set(dave.headers);
    expect(twice.status).toBe(400);
    expect(twice.body).toEqual({ error: "invalid_request", message: "agentId: must be a single string" });
  });

  it("approve: pending → approved, announced, no longer listed; deciding again is 404", async () => {
    const id = await pendingFor(alice);
    const res = await decide(alice.headers, { requestId: id, decision: "approve" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, requestId: id, decision: "approve", tier: "dangerous" });
    const row = await rowOf(id);
    expect(row).toMatchObject({ status: "approved", decision: "approve" });
    expect(row?.decidedAt).toBeInstanceOf(Date);
    const event = await hear((e) => e.type === "decision" && e.requestId === id);
    expect(event).toEqual({
      type: "decision",
      userId: alice.userId,
      requestId: id,
      decision: "approve",
      status: "approved",
      timestamp: expect.any(Number),
    });
    const list = await request(app).get("/api/permissions").set(alice.headers);
    expect(list.body.pending.map((p: { id: string }) => p.id)).not.toContain(id);
    for (const decision of ["approve", "reject", "approve_always"]) {
      const again = await decide(alice.headers, { requestId: id, decision });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ error: "permission_not_found", message: "permission request not found" });
    }
    expect(await rowOf(id)).toEqual(row);
  });

  it("approve_always behaves as approve; reject → rejected; feedback and modifiedInput are accepted", async () => {
    const always = await pendingFor(alice);
    const res = await decide(alice.headers, {
      requestId: always,
      decision: "approve_always",
      feedback: "ok",
    });
    expect(res.body).toEqual({
      success: true,
      requestId: always,
      decision: "approve_always",
      tier: "dangerous",
    });
    expect(await rowOf(always)).toMatchObject({ status: "approved", decision: "approve_always" });
    expect(await hear((e) => e.type === "decision" && e.requestId === always)).toMatchObject({
      decision: "approve_always",
      status: "approved",
    });

    const rejected = await pendingFor(alice);
    const no = await decide(
      { authorization: `Bearer ${alice.apiKey}` },
      { requestId: rejected, decision: "reject", feedback: "no", modifiedInput: "{}" },
    );
    expect(no.body).toEqual({ success: true, requestId: rejected, decision: "reject", tier: "dangerous" });
    expect(await rowOf(rejected)).toMatchObject({ status: "rejected", decision: "reject" });
    expect(await hear((e) => e.type === "decision" && e.requestId === rejected)).toMatchObject({
      decision: "reject",
      status: "rejected",
    });
  });

  it("another user's request is 404 and stays pending; a missing one is 404", async () => {
    const id = await pendingFor(bob);
    for (const headers of [alice.headers, { authorization: `Bearer ${alice.apiKey}` }]) {
      const res = await decide(headers, { requestId: id, decision: "approve" });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("permission_not_found");
    }
    expect(await rowOf(id)).toMatchObject({ status: "pending", decision: null });
    expect((await decide(alice.headers, { requestId: "perm_0_missing", decision: "reject" })).status).toBe(
      404,
    );
  });

  it("400 for a missing requestId or decision, or an invalid decision; nothing changes", async () => {
    const id = await pendingFor(alice);
    const cases: Array<[unknown, string]> = [
      [{ decision: "approve" }, "requestId: is required"],
      [{ requestId: id }, "decision: is required"],
      [{}, "requestId: is required"],
      [{ requestId: id, decision: "maybe" }, "decision: must be one of approve, reject, approve_always"],
      [{ requestId: id, decision: 1 }, "decision: must be one of approve, reject, approve_always"],
      [{ requestId: 5, decision: "approve" }, "requestId: must be a string"],
      [{ requestId: id, decision: "approve", feedback: 3 }, "feedback: must be a string"],
      [{ requestId: id, decision: "approve", extra: true }, "unknown field: extra"],
      [[id], "request body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const res = await decide(alice.headers, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
    const empty = await request(app).post("/api/permissions").set(alice.headers);
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe("requestId: is required");
    expect(await rowOf(id)).toMatchObject({ status: "pending", decision: null, decidedAt: null });
  });
});

describe("store", () => {
  it("decidePermission is atomic: of concurrent decisions exactly one wins", async () => {
    const res = await request(app)
      .post("/api/permissions/classify")
      .set(alice.headers)
      .send({ agentId: alice.agentId, ...DANGEROUS });
    const requestId: string = res.body.requestId;
    const results = await Promise.all(
      (["approve", "reject", "approve_always", "reject", "approve"] as const).map((decision) =>
        decidePermission(database.db, { userId: alice.userId, requestId, decision }),
      ),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const decided = winners[0];
    if (!decided) throw new Error("expected a winner");
    expect(permissionJson(decided)).toMatchObject({
      id: requestId,
      status: decided.decision === "reject" ? "rejected" : "approved",
      decidedAt: decided.decidedAt?.toISOString(),
    });
    expect(permissionJson(decided).decidedAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(await rowOf(requestId)).toMatchObject({
      decision: winners[0]?.decision,
      status: winners[0]?.status,
    });
    expect(await listPendingPermissions(database.db, alice.userId, { agentId: "agt_none" })).toEqual([]);
  });
});

describe("POST /api/hooks/classify", () => {
  const hook = (body: unknown, token: string | null) => {
    const req = request(app).post("/api/hooks/classify");
    return (token ? req.set({ authorization: `Bearer ${token}` }) : req).send(body as object);
  };

  it("both body formats; safe and destructive create no record; dangerous a pending hook_ request", async () => {
    const before = await rowCount();
    const safe = await hook({ agentId: alice.agentId, ...SAFE }, alice.token);
    expect(safe.status).toBe(200);
    expect(safe.body).toEqual({ allow: true, ...expected(SAFE) });
    const hookShape = {
      tool_name: "bash",
      tool_input: { command: "rm -rf /" },
      session_id: "s1",
      hook_event_name: "PreToolUse",
      cwd: "/work",
    };
    const destructive = await hook(hookShape, alice.token);
    expect(destructive.body).toEqual({ allow: false, ...expected(DESTRUCTIVE) });
    const withoutAgent = await hook(SAFE, alice.token);
    expect(withoutAgent.body).toEqual({ allow: true, ...expected(SAFE) });
    expect(await rowCount()).toBe(before);

    for (const body of [
      { ...hookShape, tool_input: DANGEROUS.toolInput },
      { agentId: alice.agentId, ...DANGEROUS },
    ]) {
      const res = await hook(body, alice.token);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ allow: false, ...expected(DANGEROUS), requestId: expect.any(String) });
      expect(res.body.requestId).toMatch(/^hook_\d{13}_[0-9a-z]{10}$/);
      expect(await rowOf(res.body.requestId)).toMatchObject({
        agentId: alice.agentId,
        userId: alice.userId,
        toolName: "bash",
        toolInput: DANGEROUS.toolInput,
        status: "pending",
      });
      const event = await hear((e) => e.type === "permission_request" && e.request.id === res.body.requestId);
      expect(event.userId).toBe(alice.userId);
    }
    expect(await rowCount()).toBe(before + 2);
  });

  it("401 without a token or with an unknown one; 403 for another agent's id", async () => {
    for (const token of [null, "nope", generateGatewayToken(), INTERNAL_API_KEY, alice.apiKey]) {
      const res = await hook({ ...SAFE }, token);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("unauthorized");
    }
    const before = await rowCount();
    const res = await hook({ agentId: bob.agentId, ...DANGEROUS }, alice.token);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: "forbidden",
      message: "agentId is not the agent of this gateway token",
    });
    expect(await rowCount()).toBe(before);
  });

  it("400 for a body without a tool name or with a non-object input", async () => {
    const cases: Array<[unknown, string]> = [
      [{ tool_input: {} }, "toolName (or tool_name) is required and must be a string"],
      [{ tool_name: 3 }, "toolName (or tool_name) is required and must be a string"],
      [{ tool_name: "bash", tool_input: "ls" }, "toolInput (or tool_input) must be an object"],
      [{ toolName: "bash", toolInput: [1] }, "toolInput (or tool_input) must be an object"],
      [{ toolName: "read", agentId: 5 }, "agentId must be a non-empty string"],
      [[], "request body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const res = await hook(body, alice.token);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
  });

  it("503 while gateway tokens cannot be read (no DATA_ENCRYPTION_KEY)", async () => {
    const bare = testListener({ env: { DATA_ENCRYPTION_KEY: undefined }, logger, permissionBus: bus });
    const res = await request(bare)
      .post("/api/hooks/classify")
      .set({ authorization: `Bearer ${alice.token}` })
      .send(SAFE);
    expect(res.status).toBe(503);
    expect(res.body.error).toBe("data_encryption_key_unset");
  });
});

describe("the classify hook ahead of Express answers exactly as the Express route", () => {
  // createApp alone serves the hook through Express (hooks.ts); createBackendListener answers it first.
  const expressOnly = testApp({ config, logger, permissionBus: watchedBus });
  const send = async (
    target: typeof app | typeof expressOnly,
    body: string,
    headers: Record<string, string>,
  ) => {
    const res = await request(target).post("/api/hooks/classify").set(headers).send(body);
    return { status: res.status, body: res.body, type: res.headers["content-type"] };
  };

  it("for JSON, non-JSON, empty, too large and unauthenticated bodies", async () => {
    const json = { "content-type": "application/json", authorization: `Bearer ${alice.token}` };
    const cases: Array<[string, Record<string, string>]> = [
      [JSON.stringify(SAFE), json],
      [JSON.stringify({ tool_name: "bash", tool_input: { command: "rm -rf /" } }), json],
      ["{not json", json],
      ["", json],
      [JSON.stringify(SAFE), { ...json, "content-type": "text/plain" }],
      [JSON.stringify(SAFE), { ...json, "content-type": "application/vnd.hook+json" }],
      [JSON.stringify({ ...SAFE, pad: "x".repeat(1024 * 1024) }), json],
      [JSON.stringify(SAFE), { "content-type": "application/json" }],
      [JSON.stringify({ agentId: bob.agentId, ...SAFE }), json],
    ];
    for (const [body, headers] of cases) {
      const fast = await send(app, body, headers);
      const viaExpress = await send(expressOnly, body, headers);
      expect(fast, `${headers["content-type"]} ${body.slice(0, 40)}`).toEqual(viaExpress);
    }
    expect((await send(app, "{not json", json)).body).toEqual({
      error: "invalid_json",
      message: "request body is not valid JSON",
    });
    expect((await send(app, JSON.stringify({ pad: "x".repeat(1024 * 1024) }), json)).status).toBe(413);
  });

  it("leaves every other request to the app", async () => {
    expect((await request(app).get("/health")).status).toBe(200);
    expect((await request(app).get("/api/hooks/classify")).status).toBe(404);
    const withQuery = await request(app)
      .post("/api/hooks/classify?x=1")
      .set({ authorization: `Bearer ${alice.token}` })
      .send(SAFE);
    expect(withQuery.body).toEqual({ allow: true, ...expected(SAFE) });
  });
});

describe("GET /api/hooks/decision/:requestId", () => {
  async function hookRequest(who: Owner): Promise<string> {
    const res = await request(app)
      .post("/api/hooks/classify")
      .set({ authorization: `Bearer ${who.token}` })
      .send({ tool_name: "bash", tool_input: DANGEROUS.toolInput });
    return res.body.requestId;
  }
  const poll = (id: string, token: string, query = "") =>
    request(app)
      .get(`/api/hooks/decision/${id}${query}`)
      .set({ authorization: `Bearer ${token}` });

  /** Resolves once the routes hold at least `n` more bus subscriptions than `base`. */
  async function subscribed(base: number): Promise<void> {
    await expect.poll(() => subscriptions.added, { interval: 5 }).toBeGreaterThan(base);
  }

  it("pending without wait; approved / rejected once decided", async () => {
    const id = await hookRequest(alice);
    expect((await poll(id, alice.token)).body).toEqual({ status: "pending", allow: false });
    expect((await poll(id, alice.token, "?wait=0")).body).toEqual({ status: "pending", allow: false });
    await request(app)
      .post("/api/permissions")
      .set(alice.headers)
      .send({ requestId: id, decision: "approve" });
    expect((await poll(id, alice.token, "?wait=30")).body).toEqual({ status: "approved", allow: true });

    const rejected = await hookRequest(alice);
    await request(app)
      .post("/api/permissions")
      .set(alice.headers)
      .send({ requestId: rejected, decision: "reject" });
    expect((await poll(rejected, alice.token, "?wait=5")).body).toEqual({ status: "rejected", allow: false });
  });

  it("a waiting poll is answered by the decision, and lets go of the bus", async () => {
    const id = await hookRequest(alice);
    const base = subscriptions.added;
    // A wait shorter than the routes' safety-net re-read (15 s): only the bus event can answer "approved".
    const waiting = poll(id, alice.token, "?wait=10").then((res) => res);
    await subscribed(base);
    await request(app)
      .post("/api/permissions")
      .set(alice.headers)
      .send({ requestId: id, decision: "approve_always" });
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "approved", allow: true });
    expect(subscriptions.active).toBe(0);
  });

  it("a decision made through another backend process wakes a poll waiting on this one", async () => {
    // A second process on the same database: its own pool, bus and LISTEN connection. The wait is shorter
    // than the safety-net re-read (15 s): only its event, heard on this process's LISTEN, answers in time.
    const otherDatabase = connectDatabase(config.DATABASE_URL);
    const otherBus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
    await otherBus.start();
    const other = testListener({ config, database: otherDatabase, logger, permissionBus: otherBus });
    try {
      const id = await hookRequest(alice);
      const base = subscriptions.added;
      const waiting = poll(id, alice.token, "?wait=10").then((res) => res);
      await subscribed(base);
      const decided = await request(other)
        .post("/api/permissions")
        .set(alice.headers)
        .send({ requestId: id, decision: "approve" });
      expect(decided.status).toBe(200);
      expect((await waiting).body).toEqual({ status: "approved", allow: true });
    } finally {
      await otherBus.stop();
      await otherDatabase.close();
    }
  });

  it("still pending when the wait ends", async () => {
    const id = await hookRequest(alice);
    const res = await poll(id, alice.token, "?wait=1");
    expect(res.body).toEqual({ status: "pending", allow: false });
    expect(subscriptions.active).toBe(0);
  });

  it("a client that goes away releases its subscription", async () => {
    const id = await hookRequest(alice);
    const server = await serveApp(app);
    const base = subscriptions.added;
    const controller = new AbortController();
    const gone = fetch(`${server.url}/api/hooks/decision/${id}?wait=50`, {
      headers: { authorization: `Bearer ${alice.token}` },
      signal: controller.signal,
    }).catch((err: unknown) => err);
    await subscribed(base);
    expect(subscriptions.active).toBe(1);
    controller.abort();
    expect(await gone).toBeInstanceOf(Error);
    await expect.poll(() => subscriptions.active, { interval: 5 }).toBe(0);
    expect(subscriptions.active).toBe(0);
    await server.close();
  });

  it("404 for another agent's request or a missing one; 401 without the token; 400 for a bad wait", async () => {
    const id = await hookRequest(alice);
    for (const token of [bob.token]) {
      const res = await poll(id, token, "?wait=1");
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "permission_not_found", message: "permission request not found" });
    }
    expect((await poll("hook_0_missing", alice.token)).status).toBe(404);
    expect((await request(app).get(`/api/hooks/decision/${id}`)).status).toBe(401);
    expect((await poll(id, "wrong")).status).toBe(401);
    for (const query of ["?wait=-1", "?wait=abc", "?wait=1&wait=2"]) {
      const res = await poll(id, alice.token, query);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message: "wait: must be a number of seconds" });
    }
  });

  it("a decision stored without an event is still seen by a new poll", async () => {
    const id = await hookRequest(alice);
    await decidePermission(database.db, { userId: alice.userId, requestId: id, decision: "reject" });
    expect((await poll(id, alice.token, "?wait=20")).body).toEqual({ status: "rejected", allow: false });
  });
});
