import { ManualClock } from "@svc/common";
import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { testDatabase } from "../testing";
import {
  claimJobs,
  completeAndClaimJobs,
  completeJob,
  databaseClock,
  enqueueJob,
  failJob,
  getJob,
  jobMetrics,
  parseUtcTimestamp,
  QUEUE_SESSION_OPTIONS,
  QUEUE_TYPES,
  type QueueClock,
  refreshJobLock,
  releaseJobs,
  requeueStaleJobs,
} from "./sql";

const database = testDatabase();
const pool = database.pool;
const manual = new ManualClock("2026-11-21T10:00:00.000Z");
const clock: QueueClock = { now: () => manual.now() };
beforeEach(async () => {
  await pool.query("delete from platform_jobs");
  manual.set("2026-11-21T10:00:00.000Z");
});

const chat = (userId = "usr_a") =>
  enqueueJob(pool, clock, {
    jobType: "gateway_chat_completion",
    userId,
    agentId: "agt_1",
    payload: { userId, agentId: "agt_1", message: "hi" },
  });
const provision = () =>
  enqueueJob(pool, clock, {
    jobType: "provision_managed_runtime",
    userId: "usr_a",
    agentId: "agt_1",
    payload: { userId: "usr_a" },
  });
const seconds = (a: Date, b: Date) => (a.getTime() - b.getTime()) / 1000;

describe("enqueue", () => {
  it("queues with the spec's lane, priority and attempts, attempts 0", async () => {
    const job = await chat();
    expect(job).toMatchObject({
      lane: "runtime_exec",
      jobType: "gateway_chat_completion",
      status: "queued",
      priority: 50,
      attempts: 0,
      maxAttempts: 3,
      startedAt: null,
      completedAt: null,
      error: null,
      result: null,
    });
    expect(job.id).toMatch(/^job_\d{13}_[0-9a-z]{10}$/);
    expect(job.runAt.toISOString()).toBe("2026-11-21T10:00:00.000Z");
    expect(await provision()).toMatchObject({ lane: "deploy", priority: 100, maxAttempts: 5 });
  });
});

describe("claim", () => {
  it("takes the highest priority first, then the oldest runAt, and only jobs whose runAt has come", async () => {
    const c1 = await chat();
    manual.advance(1000);
    const p1 = await provision();
    manual.advance(1000);
    const c2 = await chat();
    const claimed = await claimJobs(pool, clock, 10);
    expect(claimed.map((c) => c.job.id)).toEqual([p1.id, c1.id, c2.id]);
    expect(claimed[0].job).toMatchObject({ status: "running", attempts: 1 });
    expect(claimed[0].job.lockedAt?.toISOString()).toBe(manual.now().toISOString());
    expect(claimed[0].job.startedAt?.toISOString()).toBe(manual.now().toISOString());
    expect(await claimJobs(pool, clock, 10)).toEqual([]);
  });

  it("two claimers never get the same job", async () => {
    for (let i = 0; i < 50; i++) await chat();
    const [a, b] = await Promise.all([claimJobs(pool, clock, 30), claimJobs(pool, clock, 30)]);
    const ids = [...a, ...b].map((c) => c.job.id);
    expect(ids).toHaveLength(50);
    expect(new Set(ids).size).toBe(50);
  });

  it("filters by lane when asked", async () => {
    await chat();
    const p = await provision();
    expect((await claimJobs(pool, clock, 10, ["deploy"])).map((c) => c.job.id)).toEqual([p.id]);
  });
});

describe("transitions", () => {
  it("running -> completed sets result and completedAt", async () => {
    await chat();
    const [claim] = await claimJobs(pool, clock, 1);
    manual.advance(2500);
    expect(
      await completeJob(pool, clock, { id: claim.job.id, lockToken: claim.lockToken }, { reply: "ok" }),
    ).toBe(true);
    const job = await getJob(pool, claim.job.id);
    expect(job).toMatchObject({
      status: "completed",
      result: { reply: "ok" },
      lockedAt: null,
      lockToken: null,
      error: null,
    });
    expect(job?.completedAt?.toISOString()).toBe("2026-11-21T10:00:02.500Z");
  });

  it("backs off exactly 30, 60, 90, 120, then 300 s; startedAt stays the first attempt; the last failure keeps error and sets completedAt", async () => {
    const created = await provision();
    const started = manual.now().toISOString();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt++) {
      const [claim] = await claimJobs(pool, clock, 1);
      expect(claim.job.attempts).toBe(attempt);
      expect(claim.job.startedAt?.toISOString()).toBe(started);
      const after = await failJob(
        pool,
        clock,
        { id: claim.job.id, lockToken: claim.lockToken },
        `boom ${attempt}`,
      );
      if (!after) throw new Error("the claim was lost");
      if (attempt < 5) {
        expect(after).toMatchObject({
          status: "queued",
          error: `boom ${attempt}`,
          completedAt: null,
          lockedAt: null,
        });
        delays.push(seconds(after.runAt, manual.now()));
        // Not claimable before its runAt, claimable at it.
        manual.set(new Date(after.runAt.getTime() - 1));
        expect(await claimJobs(pool, clock, 1)).toEqual([]);
        manual.advance(1);
      } else {
        expect(after).toMatchObject({ status: "failed", error: "boom 5", attempts: 5 });
        expect(after?.completedAt?.toISOString()).toBe(manual.now().toISOString());
      }
    }
    expect(delays).toEqual([30, 60, 90, 120]);
    expect(created.maxAttempts).toBe(5);
  });

  it("a sixth-attempt-style backoff caps at 300 s", async () => {
    const job = await provision();
    await pool.query("update platform_jobs set max_attempts = 9 where id = $1", [job.id]);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const [claim] = await claimJobs(pool, clock, 1);
      const after = await failJob(pool, clock, { id: claim.job.id, lockToken: claim.lockToken }, "x");
      delays.push(seconds(after?.runAt as Date, manual.now()));
      manual.set(after?.runAt as Date);
    }
    expect(delays).toEqual([30, 60, 90, 120, 300, 300]);
  });

  it("chat jobs fail for good on their third attempt", async () => {
    await chat();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [claim] = await claimJobs(pool, clock, 1);
      const after = await failJob(pool, clock, { id: claim.job.id, lockToken: claim.lockToken }, "down");
      if (after?.status === "queued") manual.set(after.runAt);
      else expect(attempt).toBe(3);
    }
    const [row] = (await pool.query("select status, attempts from platform_jobs")).rows;
    expect(row).toEqual({ status: "failed", attempts: 3 });
  });

  it("a job running for more than 10 minutes is requeued, and its old worker is fenced out", async () => {
    await chat();
    const [claim] = await claimJobs(pool, clock, 1);
    manual.advance(10 * 60 * 1000);
    expect(await requeueStaleJobs(pool, clock, 10 * 60 * 1000)).toEqual([]);
    manual.advance(1);
    expect(await requeueStaleJobs(pool, clock, 10 * 60 * 1000)).toEqual([claim.job.id]);
    const requeued = await getJob(pool, claim.job.id);
    expect(requeued).toMatchObject({
      status: "queued",
      lockedAt: null,
      attempts: 1,
      error: "worker lost: running for more than 600 s",
    });
    const [again] = await claimJobs(pool, clock, 1);
    expect(again.job.attempts).toBe(2);
    const old = { id: claim.job.id, lockToken: claim.lockToken };
    expect(await completeJob(pool, clock, old, { late: true })).toBe(false);
    expect(await failJob(pool, clock, old, "late")).toBeNull();
    expect(await releaseJobs(pool, clock, [old])).toBe(0);
    expect(
      await completeJob(pool, clock, { id: again.job.id, lockToken: again.lockToken }, { reply: "fresh" }),
    ).toBe(true);
    expect((await getJob(pool, claim.job.id))?.result).toEqual({ reply: "fresh" });
  });

  it("a refreshed lock keeps a long job out of the stale rule; a lost claim cannot refresh", async () => {
    await chat();
    const [claim] = await claimJobs(pool, clock, 1);
    const fence = { id: claim.job.id, lockToken: claim.lockToken };
    const claimedUpdatedAt = (await getJob(pool, claim.job.id))?.updatedAt.toISOString();
    for (let minute = 1; minute <= 15; minute++) {
      manual.advance(60 * 1000);
      expect(await refreshJobLock(pool, clock, fence)).toBe(true);
      expect(await requeueStaleJobs(pool, clock, 10 * 60 * 1000)).toEqual([]);
    }
    const running = await getJob(pool, claim.job.id);
    expect(running).toMatchObject({ status: "running", attempts: 1, lockToken: claim.lockToken });
    expect(running?.lockedAt?.toISOString()).toBe("2026-11-21T10:15:00.000Z");
    // A heartbeat changes nothing but the lock's time.
    expect(running?.updatedAt.toISOString()).toBe(claimedUpdatedAt);

    // No refresh for more than 10 minutes (its worker died): requeued, and the old claim stays lost.
    manual.advance(10 * 60 * 1000 + 1);
    expect(await requeueStaleJobs(pool, clock, 10 * 60 * 1000)).toEqual([claim.job.id]);
    expect(await refreshJobLock(pool, clock, fence)).toBe(false);
    const [again] = await claimJobs(pool, clock, 1);
    expect(await refreshJobLock(pool, clock, fence)).toBe(false);
    expect(await refreshJobLock(pool, clock, { id: again.job.id, lockToken: again.lockToken })).toBe(true);
    expect(await completeJob(pool, clock, { id: again.job.id, lockToken: again.lockToken }, {})).toBe(true);
    expect(await refreshJobLock(pool, clock, { id: again.job.id, lockToken: again.lockToken })).toBe(false);
  });

  it("a stale job on its last attempt fails instead of looping", async () => {
    const job = await chat();
    await pool.query("update platform_jobs set attempts = 2 where id = $1", [job.id]);
    await claimJobs(pool, clock, 1);
    manual.advance(10 * 60 * 1000 + 1);
    await requeueStaleJobs(pool, clock, 10 * 60 * 1000);
    expect(await getJob(pool, job.id)).toMatchObject({ status: "failed", attempts: 3 });
  });

  it("release puts unfinished jobs back without counting the attempt", async () => {
    await chat();
    const [claim] = await claimJobs(pool, clock, 1);
    expect(await releaseJobs(pool, clock, [{ id: claim.job.id, lockToken: claim.lockToken }])).toBe(1);
    expect(await getJob(pool, claim.job.id)).toMatchObject({
      status: "queued",
      attempts: 0,
      lockToken: null,
    });
  });
});

describe("complete and claim in one statement", () => {
  it("completes the finished job, claims its successor, and is fenced like completeJob", async () => {
    const first = await chat();
    manual.advance(1);
    const second = await chat();
    const [claim] = await claimJobs(pool, clock, 1);
    expect(claim.job.id).toBe(first.id);
    manual.advance(1000);
    const out = await completeAndClaimJobs(
      pool,
      clock,
      [{ id: claim.job.id, lockToken: claim.lockToken, result: { n: 1 } }],
      1,
    );
    expect([...out.completed]).toEqual([first.id]);
    expect(out.claims.map((c) => c.job.id)).toEqual([second.id]);
    expect(out.claims[0].job).toMatchObject({ status: "running", attempts: 1 });
    expect(out.claims[0].job.startedAt?.toISOString()).toBe(manual.now().toISOString());
    expect(await getJob(pool, first.id)).toMatchObject({ status: "completed", result: { n: 1 } });
    const stale = await completeAndClaimJobs(
      pool,
      clock,
      [{ id: first.id, lockToken: claim.lockToken, result: {} }],
      1,
    );
    expect(stale).toEqual({ completed: new Set(), claims: [] });
  });

  it("completes a batch, each job with its own result and fenced by its own token, and claims up to the limit", async () => {
    const jobs = [];
    for (let i = 0; i < 6; i++) {
      jobs.push(await chat());
      manual.advance(1);
    }
    const claims = await claimJobs(pool, clock, 3);
    expect(claims.map((c) => c.job.id)).toEqual(jobs.slice(0, 3).map((j) => j.id));
    // A second claim: its token differs from the first one's.
    const [fourth] = await claimJobs(pool, clock, 1);
    expect(fourth.lockToken).not.toBe(claims[0].lockToken);
    manual.advance(1000);
    const out = await completeAndClaimJobs(
      pool,
      clock,
      [
        { id: claims[0].job.id, lockToken: claims[0].lockToken, result: { n: 0 } },
        // The fourth job presented with the first claim's token: fenced out.
        { id: fourth.job.id, lockToken: claims[0].lockToken, result: { n: "stolen" } },
        { id: claims[2].job.id, lockToken: claims[2].lockToken, result: { n: 2, nested: { a: [1, "x"] } } },
        { id: claims[1].job.id, lockToken: claims[1].lockToken, result: { n: 1 } },
      ],
      5,
    );
    expect([...out.completed].sort()).toEqual(claims.map((c) => c.job.id).sort());
    expect(out.claims.map((c) => c.job.id)).toEqual(jobs.slice(4).map((j) => j.id));
    expect(await getJob(pool, claims[0].job.id)).toMatchObject({ status: "completed", result: { n: 0 } });
    expect(await getJob(pool, claims[1].job.id)).toMatchObject({ status: "completed", result: { n: 1 } });
    const third = await getJob(pool, claims[2].job.id);
    expect(third).toMatchObject({ status: "completed", result: { n: 2, nested: { a: [1, "x"] } } });
    expect(third?.completedAt?.toISOString()).toBe(manual.now().toISOString());
    expect(await getJob(pool, fourth.job.id)).toMatchObject({ status: "running", result: null });

    // Completing only (no slot to fill): the same fence.
    const only = await completeAndClaimJobs(
      pool,
      clock,
      [
        { id: fourth.job.id, lockToken: fourth.lockToken, result: { n: 3 } },
        { id: claims[0].job.id, lockToken: claims[0].lockToken, result: { again: true } },
      ],
      0,
    );
    expect(only).toEqual({ completed: new Set([fourth.job.id]), claims: [] });
    expect(await getJob(pool, fourth.job.id)).toMatchObject({ status: "completed", result: { n: 3 } });
    expect((await getJob(pool, claims[0].job.id))?.result).toEqual({ n: 0 });
  });
});

describe("prepared claims on a worker session", () => {
  it("keep the ordered index walk even when planned against an empty, analyzed table", async () => {
    const session = new pg.Client({
      connectionString: process.env.DATABASE_URL,
      options: QUEUE_SESSION_OPTIONS,
    });
    await session.connect();
    try {
      // The worst moment to plan: the table analyzed while empty; the session's options force the generic
      // plan, so that one plan is what every execution uses.
      await session.query("analyze platform_jobs");
      expect((await session.query("show plan_cache_mode")).rows[0].plan_cache_mode).toBe(
        "force_generic_plan",
      );
      expect(await claimJobs(session, databaseClock, 1)).toEqual([]);
      const done = { id: "job_none", lockToken: "none", result: {} };
      expect((await completeAndClaimJobs(session, databaseClock, [done], 1)).claims).toEqual([]);
      expect((await completeAndClaimJobs(session, databaseClock, [done], 0)).completed.size).toBe(0);
      expect(await refreshJobLock(session, databaseClock, done)).toBe(false);
      await pool.query(
        `insert into platform_jobs (id, lane, job_type, priority, max_attempts, payload, run_at)
         select 'job_' || lpad(i::text, 10, '0'), 'runtime_exec', 'gateway_chat_completion', 50, 3, '{}'::jsonb,
                now() - make_interval(secs => 3000 - i)
         from generate_series(1, 2000) as i`,
      );
      const plan = async (statement: string) =>
        (await session.query(`explain (costs off) execute ${statement}`)).rows
          .map((row) => row["QUERY PLAN"] as string)
          .join("\n");
      for (const [text, claims] of [
        [await plan("platform_jobs_claim_1(null, 'token')"), true],
        [await plan("platform_jobs_complete_claim_1(null, '{job_none}', '{none}', '[{}]', 'token')"), true],
        [await plan("platform_jobs_complete_batch(null, '{job_none}', '{none}', '[{}]')"), false],
      ] as const) {
        if (claims) expect(text).toContain("Index Scan using platform_jobs_claim_idx");
        else expect(text).not.toContain("platform_jobs_claim_idx");
        // The finished jobs (complete-and-claim) are found by their key, like the claimed ones.
        for (const scan of text.matchAll(
          /Index Scan using (\w+) on platform_jobs job\w*\s+Index Cond: (.*)/g,
        ))
          expect([scan[1], scan[2]]).toEqual(["platform_jobs_pkey", expect.stringMatching(/^\(id = /)]);
        expect(text.match(/ on platform_jobs job\w*\s+Index Cond/g)?.length).toBe(
          text.match(/Update on/g)?.length,
        );
        expect(text).toMatch(
          /Index Scan using platform_jobs_pkey on platform_jobs job\w*\s+Index Cond: \(id = ANY/,
        );
        expect(text).not.toMatch(/Seq Scan|Sort|Bitmap/);
      }
      // The lock refresh (once per running job per interval) is one primary-key lookup.
      const refresh = await plan("platform_jobs_refresh_lock(null, 'job_0000000001', 'token')");
      expect(refresh).toMatch(/Index Scan using platform_jobs_pkey on platform_jobs\s+Index Cond: \(id = /);
      expect(refresh).not.toMatch(/Seq Scan|Sort|Bitmap/);
      // And the cached statement still claims what the table now holds, oldest first.
      const [claim] = await claimJobs(session, databaseClock, 1);
      expect(claim.job.id).toBe("job_0000000001");
    } finally {
      await session.end();
    }
  });
});

describe("timestamps on a worker session", () => {
  it("read digit by digit, are the Dates pg's own parser makes", () => {
    const pgParse = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text");
    const texts = [
      "2026-11-21 10:00:00+00",
      "2026-11-21 10:00:00.5+00",
      "2026-11-21 10:00:00.001+00",
      "2026-11-21 10:00:00.000001+00",
      "2026-11-21 10:00:00.123456+00",
      "2026-11-21 10:00:00.999999+00",
      "2024-02-29 23:59:59.99999+00",
      "1970-01-01 00:00:00+00",
      "0100-01-01 00:00:00.25+00",
      // Shapes a UTC session never prints: pg's parser reads them.
      "0099-06-01 12:00:00+00",
      "2026-11-21 10:00:00+01",
      "2026-11-21 10:00:00.75-05:30",
      "0044-03-15 12:00:00+00 BC",
      "infinity",
      "-infinity",
    ];
    // Every millisecond fraction digit count, over a spread of instants.
    for (let i = 0; i < 2000; i++) {
      const iso = new Date(Date.UTC(1990, 0, 1) + i * 987_654_321_7).toISOString();
      const fraction = String((i * 7_919) % 1_000_000)
        .padStart(6, "0")
        .slice(0, 1 + (i % 6));
      texts.push(`${iso.slice(0, 10)} ${iso.slice(11, 19)}${i % 7 === 0 ? "" : `.${fraction}`}+00`);
    }
    for (const text of texts) {
      const ours = parseUtcTimestamp(text);
      const theirs = pgParse(text) as Date | number;
      expect([text, ours instanceof Date ? ours.getTime() : ours]).toEqual([
        text,
        theirs instanceof Date ? theirs.getTime() : theirs,
      ]);
    }
  });

  it("give a claimed job the same instants as a session in another zone reads", async () => {
    const session = new pg.Client({
      connectionString: process.env.DATABASE_URL,
      options: QUEUE_SESSION_OPTIONS,
      types: QUEUE_TYPES,
    });
    const elsewhere = new pg.Client({
      connectionString: process.env.DATABASE_URL,
      options: "-c TimeZone=America/New_York",
    });
    await session.connect();
    await elsewhere.connect();
    try {
      const job = await chat();
      // Microseconds in every timestamp the claim returns.
      await pool.query("update platform_jobs set run_at = now() - interval '1.234567 s' where id = $1", [
        job.id,
      ]);
      const [claim] = await claimJobs(session, databaseClock, 1);
      const stored = await getJob(elsewhere, job.id);
      for (const field of ["runAt", "lockedAt", "startedAt", "createdAt", "updatedAt"] as const)
        expect([field, claim.job[field]?.getTime()]).toEqual([field, stored?.[field]?.getTime()]);
    } finally {
      await session.end();
      await elsewhere.end();
    }
  });
});

describe("metrics", () => {
  it("counts per lane and status and the oldest queued age", async () => {
    expect(await jobMetrics(pool, clock)).toEqual({ counts: [], oldestQueuedAgeSeconds: 0 });
    await chat();
    await chat();
    await provision();
    await claimJobs(pool, clock, 1, ["deploy"]);
    manual.advance(42_500);
    expect(await jobMetrics(pool, clock)).toEqual({
      counts: [
        { lane: "deploy", status: "running", count: 1 },
        { lane: "runtime_exec", status: "queued", count: 2 },
      ],
      oldestQueuedAgeSeconds: 42,
    });
  });
});
