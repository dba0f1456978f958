/**
 * `GET /api/platform-jobs` (internal key + signed user context): one user's own jobs, newest first, paged by
 * an opaque keyset cursor, filtered by type and status. Real PostgreSQL, the real app.
 */
import { userContextHeaders } from "@svc/common";
import { connectDatabase } from "@svc/db";
import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { HMAC_SECRET, headersFor, testApp, testDatabase } from "../testing";
import { encodeJobCursor } from "./inputs";
import { enqueueJob, type QueueClock } from "./sql";

const database = testDatabase();
const app = testApp();
beforeEach(() => database.pool.query("delete from platform_jobs"));

const as = (userId: string, secret = HMAC_SECRET) => ({
  ...headersFor("internal"),
  ...userContextHeaders(secret, { userId, userEmail: `${userId}@example.com`, userRole: "user" }),
});
const at = (iso: string): QueueClock => ({ now: () => new Date(iso) });

async function enqueue(
  userId: string,
  jobType: "gateway_chat_completion" | "provision_managed_runtime",
  clock: QueueClock = { now: () => null },
) {
  return enqueueJob(database.pool, clock, { jobType, userId, agentId: "agt_1", payload: { userId } });
}

function list(userId: string, query = "") {
  return request(app).get(`/api/platform-jobs${query}`).set(as(userId));
}

/** Every page from the first, following `nextCursor`; `between` runs after each page. */
async function allPages(userId: string, query: string, between: () => Promise<void> = async () => {}) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await list(userId, `${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(res.status).toBe(200);
    ids.push(...res.body.jobs.map((j: { id: string }) => j.id));
    cursor = res.body.nextCursor;
    pages++;
    await between();
  } while (cursor !== null && pages < 50);
  return { ids, pages };
}

describe("GET /api/platform-jobs", () => {
  it("lists the signed user's jobs newest first, as the job endpoint shows them; nobody else's", async () => {
    const older = await enqueue("usr_ann", "provision_managed_runtime", at("2026-03-01T10:00:00Z"));
    const newer = await enqueue("usr_ann", "gateway_chat_completion", at("2026-03-01T11:00:00Z"));
    await enqueue("usr_bob", "gateway_chat_completion", at("2026-03-01T12:00:00Z"));

    const res = await list("usr_ann");
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.jobs.map((j: { id: string }) => j.id)).toEqual([newer.id, older.id]);
    const single = await request(app).get(`/api/platform-jobs/${newer.id}`).set(as("usr_ann"));
    expect(res.body.jobs[0]).toEqual(single.body.job);
    expect(res.body.jobs[0]).toMatchObject({
      userId: "usr_ann",
      lane: "runtime_exec",
      jobType: "gateway_chat_completion",
      status: "queued",
      attempts: 0,
      maxAttempts: 3,
      createdAt: "2026-03-01T11:00:00.000Z",
    });

    const bob = await list("usr_bob");
    expect(bob.body.jobs).toHaveLength(1);
    expect(bob.body.jobs[0].userId).toBe("usr_bob");
    expect((await list("usr_nobody")).body).toEqual({ jobs: [], nextCursor: null });
  });

  it("another user's cursor pages nothing of theirs", async () => {
    for (let i = 0; i < 3; i++)
      await enqueue("usr_ann", "gateway_chat_completion", at(`2026-03-0${i + 1}T00:00:00Z`));
    await enqueue("usr_bob", "gateway_chat_completion", at("2026-01-01T00:00:00Z"));
    const first = await list("usr_ann", "?limit=1");
    expect(first.body.nextCursor).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/));
    const foreign = await list("usr_bob", `?cursor=${first.body.nextCursor}`);
    expect(foreign.status).toBe(200);
    expect(foreign.body.jobs.map((j: { userId: string }) => j.userId)).toEqual(["usr_bob"]);
  });

  it("pages with `limit` and `nextCursor`; default 20, at most 100", async () => {
    for (let i = 0; i < 25; i++) {
      await enqueue(
        "usr_ann",
        "gateway_chat_completion",
        at(new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString()),
      );
    }
    const first = await list("usr_ann");
    expect(first.body.jobs).toHaveLength(20);
    const second = await list("usr_ann", `?cursor=${first.body.nextCursor}`);
    expect(second.body.jobs).toHaveLength(5);
    expect(second.body.nextCursor).toBeNull();
    const { ids, pages } = await allPages("usr_ann", "?limit=7");
    expect(pages).toBe(4);
    expect(new Set(ids).size).toBe(25);
    const times = (await list("usr_ann", "?limit=100")).body.jobs.map(
      (j: { createdAt: string }) => j.createdAt,
    );
    expect(times).toEqual([...times].sort().reverse());
    // A page that ends exactly at the last job has no next cursor.
    expect((await list("usr_ann", "?limit=25")).body.nextCursor).toBeNull();
  });

  it("stays stable under inserts: jobs enqueued between pages neither repeat nor push others out", async () => {
    const before: string[] = [];
    for (let i = 0; i < 9; i++) {
      before.push(
        (await enqueue("usr_ann", "gateway_chat_completion", at(`2026-02-0${i + 1}T00:00:00Z`))).id,
      );
    }
    let added = 0;
    const { ids } = await allPages("usr_ann", "?limit=2", async () => {
      // Newer jobs of the same user arrive while the list is being read (the database clock: now).
      await enqueue("usr_ann", "gateway_chat_completion");
      added++;
    });
    expect(ids).toEqual([...before].reverse());
    expect(added).toBe(5);
    expect((await list("usr_ann", "?limit=100")).body.jobs).toHaveLength(14);
  });

  it("orders jobs created in the same instant by id, and keeps microseconds in the cursor", async () => {
    const same = at("2026-04-01T00:00:00Z");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await enqueue("usr_ann", "gateway_chat_completion", same)).id);
    // Two more that differ from each other by one microsecond only.
    const a = await enqueue("usr_ann", "gateway_chat_completion");
    const b = await enqueue("usr_ann", "gateway_chat_completion");
    await database.pool.query(
      "update platform_jobs set created_at = case id when $1 then '2026-05-01T00:00:00.000001Z'::timestamptz else '2026-05-01T00:00:00.000002Z'::timestamptz end where id in ($1, $2)",
      [a.id, b.id],
    );
    const paged = await allPages("usr_ann", "?limit=1");
    expect(paged.ids).toEqual([b.id, a.id, ...[...ids].sort().reverse()]);
  });

  it("filters by type and status", async () => {
    const chat = await enqueue("usr_ann", "gateway_chat_completion", at("2026-03-01T00:00:00Z"));
    const deploy = await enqueue("usr_ann", "provision_managed_runtime", at("2026-03-02T00:00:00Z"));
    await database.pool.query("update platform_jobs set status = 'failed' where id = $1", [deploy.id]);
    const chats = await list("usr_ann", "?type=gateway_chat_completion");
    expect(chats.body.jobs.map((j: { id: string }) => j.id)).toEqual([chat.id]);
    const failed = await list("usr_ann", "?status=failed");
    expect(failed.body.jobs.map((j: { id: string }) => j.id)).toEqual([deploy.id]);
    expect((await list("usr_ann", "?status=failed&type=gateway_chat_completion")).body.jobs).toEqual([]);
  });

  it("400 naming the parameter for a bad limit, cursor, type, status or an unknown one", async () => {
    const cases: Array<[string, string]> = [
      ["?limit=0", "limit: must be a whole number from 1 to 100"],
      ["?limit=101", "limit: must be a whole number from 1 to 100"],
      ["?limit=ten", "limit: must be a whole number from 1 to 100"],
      ["?cursor=nope!", "cursor: is not a cursor of this list"],
      [`?cursor=${Buffer.from("1.perm_x").toString("base64url")}`, "cursor: is not a cursor of this list"],
      ["?cursor=a&cursor=b", "cursor: must be a single string"],
      [
        "?type=mining",
        "type: must be one of provision_managed_runtime, gateway_chat_completion, runtime_sync, retry_repair",
      ],
      ["?status=done", "status: must be one of queued, running, completed, failed"],
      ["?userId=usr_bob", "unknown field: userId"],
    ];
    for (const [query, message] of cases) {
      const res = await list("usr_ann", query);
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: { error: "invalid_request", message },
      });
    }
    // A well-formed cursor is accepted.
    const cursor = encodeJobCursor({ createdAtMicros: 1n, id: "job_1_abc" });
    expect((await list("usr_ann", `?cursor=${cursor}`)).status).toBe(200);
  });

  it("refuses a call without the internal key or without a valid signed user context", async () => {
    await enqueue("usr_ann", "gateway_chat_completion");
    expect((await request(app).get("/api/platform-jobs")).status).toBe(401);
    const wrongKey = await request(app)
      .get("/api/platform-jobs")
      .set({ ...as("usr_ann"), authorization: "Bearer nope" });
    expect(wrongKey.status).toBe(403);
    const unsigned = await request(app).get("/api/platform-jobs").set(headersFor("internal"));
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error).toBe("SIGNATURE_REQUIRED");
    const forged = await request(app).get("/api/platform-jobs").set(as("usr_ann", "another-secret"));
    expect(forged.status).toBe(401);
    expect(forged.body.error).toBe("INVALID_SIGNATURE");
    expect(JSON.stringify(forged.body)).not.toContain("job_");
  });

  it("500 list_failed when the database fails", async () => {
    const dead = connectDatabase("postgres://x:y@127.0.0.1:1/none");
    const broken = testApp({ database: dead });
    try {
      const res = await request(broken).get("/api/platform-jobs").set(as("usr_ann"));
      expect(res.status).toBe(500);
      expect(res.body.error).toBe("list_failed");
    } finally {
      await dead.close();
    }
  });
});
