/**
 * The local driver as root: each agent runs as its own OS user, and its runtime process (the read probe,
 * backend/src/hosting/testing/read-probe-runtime.mjs) cannot read anything of the data directory that is
 * not its own: secrets.json, users' uploads (files/), mail, PostgreSQL's data, another agent's state, home,
 * log or service.json; nor the platform's /proc/<pid>/environ (this test process stands for the backend:
 * it runs the driver); and it can run the installed runtime but not change it. Real wrapper processes,
 * real users (created with useradd), the data directory as `npm start` leaves it (from what an older
 * version left open).
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, randomId } from "@svc/common";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@svc/db/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secureDataDir } from "../../../scripts/launcher/data-dir";
import { ensureLocalSecrets } from "../../../scripts/launcher/secrets";
import { ensureRuntime, type InstalledRuntime } from "../runtime-install/index";
import { installFakeNpm } from "../runtime-install/testing/fake-npm";
import { createLocalHostingPlatform, type LocalHostingPlatform } from "./local";
import { LocalServiceStore } from "./local-store";
import { closedToOthers } from "./local-users";
import { isProcessAlive, signalGroup } from "./proc";
import { testAgentEnvironment } from "./testing/agent-env";
import { wrapperReaches } from "./testing/wrapper-events";
import { agentServiceName } from "./types";

const PROBE = fileURLToPath(new URL("./testing/read-probe-runtime.mjs", import.meta.url));
const IMAGE = "ghcr.io/openclaw/openclaw:2026.4.11";
const asRoot = process.getuid?.() === 0;
// A checkout under a closed directory (e.g. a mktemp dir) cannot be reached by agent users: the driver then
// falls back to the shared user (tested below), and the isolation itself cannot be shown here.
const codeReachable =
  (await closedToOthers(fileURLToPath(new URL("../../../wrapper/src/server.ts", import.meta.url)))) ===
    null && (await closedToOthers(process.execPath, 0o001)) === null;
const drivers: LocalHostingPlatform[] = [];
let dataDir = "";
let agentsDir = "";
let secrets = "";
let environ = "";
let npmDir = "";
let cluster: EmbeddedPostgres | undefined;
let runtime: InstalledRuntime;

const serviceJson = (agentId: string) => join(agentsDir, agentId, "service.json");
const files = () => join(dataDir, "files");
const upload = () => join(files(), "file_legacy");
const mail = () => join(dataDir, "mail");
const mailFile = () => join(mail(), "sign-in.eml");
const postgres = () => join(dataDir, "postgres");
/** What agent one keeps and writes (its state holds the probe's own write), as another agent would try it. */
const ofAgentOne = () => {
  const dir = join(agentsDir, "agt_one");
  return [join(dir, "state"), join(dir, "state", "probe.txt"), join(dir, "home"), join(dir, "wrapper.log")];
};
/** What an agent runs: readable by it; the `write:` attempts must fail. */
const runtimeReads = () => [dirname(runtime.dir), runtime.entry];
const runtimeWrites = () =>
  [dirname(runtime.dir), runtime.dir, dirname(runtime.entry), runtime.entry].map((p) => `write:${p}`);

function driver(isolateAgents?: boolean): LocalHostingPlatform {
  const platform = createLocalHostingPlatform({
    agentsDir,
    // The probe tries each of these as the agent; the last is a world-readable control.
    runtimeCommand: [
      process.execPath,
      PROBE,
      secrets,
      dataDir,
      agentsDir,
      serviceJson("agt_one"),
      serviceJson("agt_two"),
      environ,
      files(),
      upload(),
      mail(),
      mailFile(),
      postgres(),
      join(postgres(), "PG_VERSION"),
      ...ofAgentOne(),
      ...runtimeReads(),
      ...runtimeWrites(),
      PROBE,
    ].join(" "),
    wrapperEnv: { LOG_LEVEL: "info", RUNTIME_HEALTH_POLL_MS: "50", FAKE_RUNTIME_READY_AFTER_MS: "0" },
    stopTimeoutMs: 5_000,
    ...(isolateAgents === undefined ? {} : { isolateAgents }),
  });
  drivers.push(platform);
  return platform;
}

const token = (agentId: string) => `token-${agentId}`;
const adminPassword = (agentId: string) => `admin-password-${agentId}`;

async function start(platform: LocalHostingPlatform, agentId: string) {
  const service = await platform.create({
    agentId,
    name: agentServiceName(agentId),
    image: IMAGE,
    env: testAgentEnvironment(agentId, token(agentId), adminPassword(agentId)),
  });
  await wrapperReaches(service.url as string, adminPassword(agentId));
  return service;
}

interface ProbeReport {
  uid: number;
  gid: number;
  reads: Record<string, string>;
  ownWrite: string;
}

/** What the agent's runtime found, from its log (printed before its runtime came up). */
async function report(platform: LocalHostingPlatform, agentId: string): Promise<ProbeReport> {
  const lines = (await platform.logs(agentId, 500)).map((l) => l.line);
  const line = lines.filter((l) => l.startsWith("read-probe ")).at(-1);
  if (!line) throw new Error(`no probe report in ${JSON.stringify(lines)}`);
  return JSON.parse(line.slice("read-probe ".length)) as ProbeReport;
}

/** Real uid of a process, from /proc. */
async function uidOf(pid: number): Promise<number> {
  return Number(/^Uid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, "utf8"))?.[1]);
}

const userOf = (name: string) => ({
  uid: Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim()),
  gid: Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim()),
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-local-isolation-"));
  agentsDir = join(dataDir, "agents");
  secrets = join(dataDir, "secrets.json");
  environ = `/proc/${process.pid}/environ`;
  if (!asRoot) return;
  // What older versions left: uploads and mail files 0644 in 0755 directories.
  for (const [dir, file] of [
    [files(), upload()],
    [mail(), mailFile()],
  ]) {
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    await writeFile(file, "a user's own words\n");
    await chmod(file, 0o644);
  }
  // A start, as `npm start` makes it: the data dir's permissions, the secrets, the embedded PostgreSQL
  // under it; and the runtime, installed by an npm whose umask leaves everything writable.
  await secureDataDir(dataDir);
  await ensureLocalSecrets(dataDir, {});
  cluster = await startEmbeddedPostgres({
    dataDir: postgres(),
    port: await freePort(),
    password: randomId(24),
    ephemeral: true,
  });
  npmDir = await mkdtemp(join(tmpdir(), "svc-local-isolation-npm-"));
  const npm = await installFakeNpm(npmDir);
  runtime = await ensureRuntime({
    runtimesDir: join(dataDir, "runtimes"),
    version: "2026.4.11",
    env: npm.env({ FAKE_NPM_UMASK: "000" }),
    minFreeBytes: 0,
  });
});

afterAll(async () => {
  for (const platform of drivers) await platform.close();
  for (const record of await new LocalServiceStore(agentsDir).all()) {
    if (record.pid && (await isProcessAlive(record.pid, record.pidStart))) signalGroup(record.pid, "SIGKILL");
  }
  await cluster?.stop();
  await rm(dataDir, { recursive: true, force: true });
  if (npmDir) await rm(npmDir, { recursive: true, force: true });
});

describe.runIf(asRoot)("local agents as root, code closed to other users", () => {
  it("by default the driver falls back to the shared user with a warning; isolateAgents: true refuses", async () => {
    const closed = await mkdtemp(join(tmpdir(), "svc-local-closed-"));
    try {
      const warnings: string[] = [];
      const logger = {
        warn: (_o: unknown, m: string) => warnings.push(m),
        info() {},
        error() {},
        debug() {},
      };
      const options = { agentsDir: join(closed, "agents"), runtimeCommand: "x" };
      const platform = createLocalHostingPlatform({ ...options, logger } as never);
      await expect(platform.ping()).resolves.toBeUndefined();
      expect(warnings).toEqual([
        // Said once, at start: an operator's runtime command is run as given.
        expect.stringContaining("LOCAL_RUNTIME_COMMAND is set"),
        expect.stringContaining("local agents are NOT isolated"),
      ]);
      expect((await stat(join(closed, "agents"))).mode & 0o777).toBe(0o700);
      await expect(createLocalHostingPlatform({ ...options, isolateAgents: true }).ping()).rejects.toThrow(
        /cannot reach LOCAL_AGENTS_DIR/,
      );
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });
});

describe.runIf(asRoot && codeReachable)("local agents as root: one OS user each", () => {
  it("an agent's process cannot read secrets.json, uploads, mail, PostgreSQL's data, another agent's files or the backend's environ, nor change its runtime", async () => {
    const platform = driver();
    await platform.ping();
    const one = await start(platform, "agt_one");
    const two = await start(platform, "agt_two");

    const userOne = one.metadata.osUser as string;
    const userTwo = two.metadata.osUser as string;
    expect(userOne).toMatch(/^svc-agent-[0-9a-f]{12}$/);
    expect(userTwo).toMatch(/^svc-agent-[0-9a-f]{12}$/);
    expect(userTwo).not.toBe(userOne);

    const seenByOne = await report(platform, "agt_one");
    const seenByTwo = await report(platform, "agt_two");
    expect(seenByOne.uid).toBe(userOf(userOne).uid);
    expect(seenByTwo.uid).toBe(userOf(userTwo).uid);
    expect(seenByTwo.uid).not.toBe(0);
    // The wrapper too runs as the agent's user.
    expect(await uidOf((await platform.find({ id: "agt_two", name: "" }))?.metadata.pid as number)).toBe(
      seenByTwo.uid,
    );

    // Each path probed is there (EACCES on a path that is missing would prove nothing).
    for (const path of [upload(), mailFile(), join(postgres(), "PG_VERSION"), ...ofAgentOne()])
      await expect(stat(path)).resolves.toBeDefined();
    expect(seenByTwo.reads).toEqual({
      [secrets]: "EACCES",
      [dataDir]: "EACCES",
      [agentsDir]: "EACCES",
      [serviceJson("agt_one")]: "EACCES",
      // Its own record is the platform's too: the agent has its token in its environment already.
      [serviceJson("agt_two")]: "EACCES",
      [environ]: "EACCES",
      // Users' uploads and mail, though an older version left them open; PostgreSQL's data.
      [files()]: "EACCES",
      [upload()]: "EACCES",
      [mail()]: "EACCES",
      [mailFile()]: "EACCES",
      [postgres()]: "EACCES",
      [join(postgres(), "PG_VERSION")]: "EACCES",
      // Another agent's state, home and log.
      ...Object.fromEntries(ofAgentOne().map((path) => [path, "EACCES"])),
      // The runtime: it runs it, it cannot change it.
      ...Object.fromEntries(runtimeReads().map((path) => [path, "ok"])),
      ...Object.fromEntries(runtimeWrites().map((path) => [path, "EACCES"])),
      [PROBE]: "ok",
    });
    expect(seenByOne.reads[environ]).toBe("EACCES");
    // Agent one probed before agent two existed: its runtime, restarted, probes again.
    await platform.restart("agt_one");
    await wrapperReaches(one.url as string, adminPassword("agt_one"));
    expect((await report(platform, "agt_one")).reads[serviceJson("agt_two")]).toBe("EACCES");
    expect(seenByTwo.ownWrite).toBe("ok");

    // The platform's files stay the platform's; only state/ and home/ are the agent's.
    const { uid, gid } = userOf(userTwo);
    const mode = async (path: string) => {
      const info = await stat(path);
      return { mode: info.mode & 0o777, uid: info.uid, gid: info.gid };
    };
    expect(await mode(agentsDir)).toEqual({ mode: 0o711, uid: 0, gid: 0 });
    expect(await mode(join(agentsDir, "agt_two"))).toEqual({ mode: 0o710, uid: 0, gid });
    expect(await mode(serviceJson("agt_two"))).toMatchObject({ mode: 0o600, uid: 0 });
    expect(await mode(join(agentsDir, "agt_two", "wrapper.log"))).toMatchObject({ mode: 0o600, uid: 0 });
    expect(await mode(join(agentsDir, "agt_two", "state"))).toEqual({ mode: 0o700, uid, gid });
    expect(await mode(join(agentsDir, "agt_two", "home"))).toEqual({ mode: 0o700, uid, gid });
    // umask 077: what the agent writes is its own alone.
    expect(await mode(join(agentsDir, "agt_two", "state", "probe.txt"))).toEqual({ mode: 0o600, uid, gid });

    // A restarted platform runs the agent as the same user.
    await platform.stop("agt_two");
    const again = driver();
    expect(await again.restoreRunning()).toEqual([]);
    const redeployed = await again.deploy("agt_two");
    await wrapperReaches(redeployed.url as string, adminPassword("agt_two"));
    expect(redeployed.metadata.osUser).toBe(userTwo);
    expect((await report(again, "agt_two")).uid).toBe(seenByTwo.uid);
  });

  it("ping names the directory that keeps agents' users from their agents directory", async () => {
    const closed = await mkdtemp(join(tmpdir(), "svc-local-closed-"));
    try {
      const strict = { agentsDir: join(closed, "agents"), runtimeCommand: "x", isolateAgents: true };
      const platform = createLocalHostingPlatform(strict);
      await expect(platform.ping()).rejects.toMatchObject({
        reason: "not_configured",
        message: `local agents run as their own OS users, who cannot reach LOCAL_AGENTS_DIR (${join(closed, "agents")}): ${closed} is closed to others (chmod o+x a directory, o+r a file, or move it)`,
      });
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });

  it("an agent that ran as the platform's user gets its state directory on its first start as its own", async () => {
    const shared = driver(false);
    const three = await start(shared, "agt_three");
    expect(three.metadata.osUser).toBeNull();
    expect((await report(shared, "agt_three")).uid).toBe(0);
    await shared.stop("agt_three");
    const written = join(agentsDir, "agt_three", "state", "probe.txt");
    expect((await stat(written)).uid).toBe(0);

    const isolated = driver();
    const moved = await isolated.deploy("agt_three");
    await wrapperReaches(moved.url as string, adminPassword("agt_three"));
    const { uid } = userOf(moved.metadata.osUser as string);
    const seen = await report(isolated, "agt_three");
    expect(seen.uid).toBe(uid);
    expect(seen.ownWrite).toBe("ok");
    expect((await stat(written)).uid).toBe(uid);
    expect(seen.reads[secrets]).toBe("EACCES");
  });
});
