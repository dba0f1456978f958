/**
 * The first deploy on a machine without the agent runtime: the provision job installs it first and says so
 * as its progress ("installing the agent runtime 2026.4.11…", what the dashboard shows), then deploys. Real
 * queue, worker, local driver and wrapper; npm is the installer tests' fake (held until the test saw the
 * step); its OpenClaw entry runs the one fake runtime.
 */
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, newId } from "@svc/common";
import { agents } from "@svc/db/schema";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createLocalHostingPlatform, type LocalHostingPlatform } from "../hosting/local";
import { LocalServiceStore } from "../hosting/local-store";
import { isProcessAlive, signalGroup } from "../hosting/proc";
import { platformProcessors, runtimeJobConfig } from "../job-processors";
import { databaseClock, enqueueJob, getJob } from "../platform-jobs/sql";
import { createJobWorker, type JobWorker } from "../platform-jobs/worker";
import { nodePackageFor } from "../runtime-install/index";
import { type FakeNpm, installFakeNpm } from "../runtime-install/testing/fake-npm";
import { createUser, DATA_ENCRYPTION_KEY, testDatabase } from "../testing";
import { probeRuntime } from "./probe";
import { readAgent } from "./testing/fixtures";

const VERSION = "2026.4.11";
const database = testDatabase();
const logger = createLogger("provision-install-test", "silent");
const config = runtimeJobConfig({
  RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
  BACKEND_PUBLIC_URL: "http://127.0.0.1:4000",
  PROVISION_HEALTH_POLL_MS: "100",
  PROVISION_HEALTH_TIMEOUT_MS: "30000",
});
let root = "";
let npm: FakeNpm;
let worker: JobWorker | undefined;
const platforms: Array<{ platform: LocalHostingPlatform; agentsDir: string }> = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "svc-provision-install-"));
  await chmod(root, 0o755);
  npm = await installFakeNpm(root);
});

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const { platform, agentsDir } of platforms.splice(0)) {
    await platform.close();
    for (const record of await new LocalServiceStore(agentsDir).all())
      if (record.pid && (await isProcessAlive(record.pid, record.pidStart)))
        signalGroup(record.pid, "SIGKILL");
  }
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function startWorker(name: string, npmEnv: NodeJS.ProcessEnv) {
  const agentsDir = join(root, `${name}-agents`);
  const platform = createLocalHostingPlatform({
    agentsDir,
    managedRuntime: { version: VERSION, runtimesDir: join(root, `${name}-runtimes`), env: npmEnv },
    wrapperEnv: { LOG_LEVEL: "info", RUNTIME_HEALTH_POLL_MS: "50", FAKE_RUNTIME_READY_AFTER_MS: "50" },
    stopTimeoutMs: 5_000,
  });
  platforms.push({ platform, agentsDir });
  worker = createJobWorker({
    connectionString: process.env.DATABASE_URL as string,
    processors: platformProcessors({
      db: database.db,
      dataEncryptionKey: DATA_ENCRYPTION_KEY,
      platform,
      config,
    }),
    logger,
    concurrency: 1,
    pollIntervalMs: 50,
    staleAfterMs: 600_000,
    shutdownGraceMs: 5_000,
  });
  await worker.start();
}

async function enqueueProvision() {
  const owner = await createUser();
  const agentId = newId("agt");
  await database.db.insert(agents).values({ id: agentId, userId: owner.id, name: "First" });
  const job = await enqueueJob(database.pool, databaseClock, {
    jobType: "provision_managed_runtime",
    userId: owner.id,
    agentId,
    payload: { userId: owner.id, agentId },
  });
  return { agentId, job };
}

const jobRow = async (id: string) => {
  const row = await getJob(database.pool, id);
  if (!row) throw new Error(`no job ${id}`);
  return row;
};

describe("provision_managed_runtime on a machine without the agent runtime", () => {
  it("installs it as a deploy step the job reports, then deploys the agent on it", async () => {
    const hold = join(root, "release-openclaw");
    await startWorker("first", npm.env({ FAKE_NPM_HOLD: hold }));
    const { agentId, job } = await enqueueProvision();

    const installing = await vi.waitFor(
      async () => {
        const row = await jobRow(job.id);
        if (row.progress !== `installing the agent runtime ${VERSION}… (OpenClaw, about 1 GB)`)
          throw new Error(`progress: ${row.progress}`);
        return row;
      },
      { timeout: 20_000, interval: 25 },
    );
    expect(installing.status).toBe("running");
    expect((await readAgent(agentId)).status).toBe("provisioning");
    await writeFile(hold, "");

    const done = await vi.waitFor(
      async () => {
        const row = await jobRow(job.id);
        if (row.status !== "completed") throw new Error(`job is ${row.status}: ${row.error}`);
        return row;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(done.result).toMatchObject({
      agentId,
      image: `ghcr.io/openclaw/openclaw:${VERSION}`,
      version: VERSION,
    });
    expect(done.progress).toBe("waiting for the agent to answer…");
    const agent = await readAgent(agentId);
    expect(agent).toMatchObject({ status: "running", version: VERSION, hostingProvider: "local" });
    expect((await probeRuntime(agent.url as string)).status).toBe("running");
    expect((await npm.calls()).map((c) => c.packages[0])).toEqual([
      expect.stringMatching(/^node-linux-(x64|arm64)@22$/),
      `openclaw@${VERSION}`,
    ]);
  });

  it("a machine that cannot install it: the attempt fails naming what is missing, at the install step", async () => {
    const nodePackage = nodePackageFor();
    const reason = `network request to https://registry.npmjs.org/${nodePackage} failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org`;
    const output = `npm error code ENOTFOUND\nnpm error ${reason}`;
    await startWorker("offline", npm.env({ FAKE_NPM_FAIL: nodePackage, FAKE_NPM_FAIL_OUTPUT: output }));
    const { job } = await enqueueProvision();
    const failed = await vi.waitFor(
      async () => {
        const row = await jobRow(job.id);
        if (!row.error) throw new Error(`job is ${row.status}`);
        return row;
      },
      { timeout: 20_000, interval: 25 },
    );
    expect(failed).toMatchObject({
      status: "queued",
      attempts: 1,
      error: `the agent runtime ${VERSION} could not be installed: the npm registry is unreachable: code ENOTFOUND; ${reason}`,
      progress: `installing the agent runtime ${VERSION}… (Node 22)`,
    });
  });
});
