/**
 * Workers as real processes (`backend/src/server.ts --worker`) on one database: exactly-once under
 * concurrency, recovery after SIGKILL through the stale rule, and a database restart under a worker.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger, freePort, randomId, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { answerAgentIdentity, type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { startEmbeddedPostgres } from "@svc/db/embedded";
import { migrateDatabase } from "@svc/db/migrate";
import { agents } from "@svc/db/schema";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { gatewayChatProcessor } from "../chat/processor";
import { createUser, testDatabase } from "../testing";
import { databaseClock, enqueueJob } from "./sql";
import { createJobWorker } from "./worker";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const url = process.env.DATABASE_URL as string;
const database = testDatabase();
const DATA_KEY = "cd".repeat(32);
const children: ChildProcess[] = [];

let runtime: FakeUpstream;
/** How many times the runtime was asked each message, and an optional hold on some messages. */
const calls = new Map<string, number>();
let hold: ((message: string) => boolean) | undefined;

beforeAll(async () => {
  runtime = await startFakeUpstream((req, res, body) => {
    // agt_p's wrapper proves it is agt_p before a worker sends it the token.
    if (answerAgentIdentity(req, res, wrapperAdminPassword(DATA_KEY, "agt_p", "token-p"))) return;
    const message = JSON.parse(body.toString()).messages.at(-1).content as string;
    calls.set(message, (calls.get(message) ?? 0) + 1);
    if (hold?.(message)) return; // never answers: the worker is stuck on it
    sendJson(res, 200, { model: "fake", choices: [{ message: { content: `re: ${message}` } }], usage: null });
  });
  await createUser({ id: "usr_p", email: "p@example.com", name: "P" });
  await database.db.insert(agents).values({
    id: "agt_p",
    userId: "usr_p",
    name: "Agent",
    url: runtime.url,
    status: "running",
    gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "token-p"),
  });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await runtime.close();
});

function spawnWorker(env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "backend/src/server.ts", "--worker"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: url,
      DATA_ENCRYPTION_KEY: DATA_KEY,
      LOG_LEVEL: "error",
      JOB_WORKER_CONCURRENCY: "4",
      JOB_POLL_INTERVAL_MS: "1000",
      // The fake answers chat only, not a wrapper's status: a watchdog would find agt_p degraded, and chat
      // jobs go only to running agents. The queue is what these tests are about.
      WATCHDOG_ENABLED: "false",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return child;
}

const enqueue = (message: string, db = database.pool) =>
  enqueueJob(db, databaseClock, {
    jobType: "gateway_chat_completion",
    userId: "usr_p",
    agentId: "agt_p",
    payload: { userId: "usr_p", agentId: "agt_p", gatewayUrl: runtime.url, message, systemPrompt: null },
  });

async function statusCounts(pool = database.pool): Promise<Record<string, number>> {
  const { rows } = await pool.query("select status, count(*)::int as n from platform_jobs group by status");
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe("worker processes", () => {
  it("two workers on one database run each of 2,000 jobs exactly once", async () => {
    await database.pool.query("delete from platform_jobs");
    calls.clear();
    const a = spawnWorker();
    const b = spawnWorker();
    const messages = Array.from({ length: 2000 }, (_, i) => `once-${i}`);
    for (let i = 0; i < messages.length; i += 100) {
      await Promise.all(messages.slice(i, i + 100).map((m) => enqueue(m)));
    }
    await expect
      .poll(async () => (await statusCounts()).completed, {
        message: "2,000 completed jobs",
        timeout: 120_000,
      })
      .toBe(2000);
    expect(await statusCounts()).toEqual({ completed: 2000 });
    expect(messages.filter((m) => calls.get(m) !== 1)).toEqual([]);
    const { rows } = await database.pool.query(
      "select count(*)::int as n from platform_jobs where attempts <> 1",
    );
    expect(rows[0].n).toBe(0);
    a.kill("SIGTERM");
    b.kill("SIGTERM");
    await Promise.all([a, b].map((c) => new Promise((r) => c.once("exit", r))));
  }, 180_000);

  it("a worker killed with SIGKILL mid-job: the stale rule requeues the job and another worker completes it", async () => {
    await database.pool.query("delete from platform_jobs");
    calls.clear();
    let first = true;
    hold = (m) => {
      if (m === "crash-me" && first) {
        first = false;
        return true;
      }
      return false;
    };
    const stale = { JOB_STALE_AFTER_MS: "1500" };
    const doomed = spawnWorker(stale);
    const job = await enqueue("crash-me");
    await expect
      .poll(() => calls.get("crash-me") ?? 0, {
        message: "the first attempt to reach the runtime",
        timeout: 30_000,
      })
      .toBe(1);
    doomed.kill("SIGKILL");
    await new Promise((r) => doomed.once("exit", r));
    const survivor = spawnWorker(stale);
    await expect
      .poll(
        async () =>
          (await database.pool.query("select status from platform_jobs where id = $1", [job.id])).rows[0]
            .status,
        { message: "the requeued job to complete", timeout: 30_000 },
      )
      .toBe("completed");
    const { rows } = await database.pool.query(
      "select attempts, result, error from platform_jobs where id = $1",
      [job.id],
    );
    expect(rows[0]).toEqual({
      attempts: 2,
      result: { reply: "re: crash-me", model: "fake", usage: null },
      error: "worker lost: running for more than 1 s",
    });
    expect(calls.get("crash-me")).toBe(2);
    hold = undefined;
    survivor.kill("SIGTERM");
    await new Promise((r) => survivor.once("exit", r));
  }, 60_000);

  it("a running worker survives a database restart and goes on", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-restart-"));
    await chmod(dir, 0o755);
    const port = await freePort();
    const password = randomId(16);
    let cluster = await startEmbeddedPostgres({
      dataDir: join(dir, "data"),
      port,
      password,
      ephemeral: true,
    });
    const own = cluster.url();
    await migrateDatabase(own);
    const handle = connectDatabase(own, { max: 6 });
    await createUser({ id: "usr_p", email: "p@example.com", name: "P" }, handle.db);
    await handle.db.insert(agents).values({
      id: "agt_p",
      userId: "usr_p",
      name: "Agent",
      url: runtime.url,
      status: "running",
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "token-p"),
    });
    // What the worker logs at warn: it says when it saw its connections drop.
    const warnings: string[] = [];
    const worker = createJobWorker({
      connectionString: own,
      processors: {
        gateway_chat_completion: gatewayChatProcessor({ db: handle.db, dataEncryptionKey: DATA_KEY }),
      },
      logger: createLogger("restart-test", "warn", { write: (line) => void warnings.push(line) }),
      concurrency: 2,
      pollIntervalMs: 500,
      staleAfterMs: 600_000,
      shutdownGraceMs: 1_000,
    });
    try {
      await worker.start();
      await enqueue("before-restart", handle.pool);
      await expect
        .poll(async () => (await statusCounts(handle.pool)).completed, {
          message: "the first job",
          timeout: 20_000,
        })
        .toBe(1);
      await cluster.stop();
      // Down until the worker has seen its connections drop, then back.
      await vi.waitFor(
        () => {
          if (!warnings.join("").includes("connection failed")) throw new Error("the worker saw no drop yet");
        },
        { timeout: 20_000 },
      );
      cluster = await startEmbeddedPostgres({ dataDir: join(dir, "data"), port, password, ephemeral: true });
      // The pool reconnects on its next query; enqueue may need a retry while old connections are dropped.
      await vi.waitFor(() => enqueue("after-restart", handle.pool), { timeout: 20_000, interval: 100 });
      await expect
        .poll(async () => (await statusCounts(handle.pool)).completed, {
          message: "the job enqueued after the restart",
          timeout: 30_000,
        })
        .toBe(2);
      expect(calls.get("after-restart")).toBe(1);
    } finally {
      await worker.stop();
      await handle.close();
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
