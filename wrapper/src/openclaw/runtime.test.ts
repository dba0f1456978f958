import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlatformSettings } from "./managed-config";
import type { GatewayRpc } from "./rpc";
import { OpenClawRuntime } from "./runtime";

/** A runtime CLI whose `config validate --json` accepts every configuration (a real process, as OpenClaw's). */
const ACCEPTING_CLI = [process.execPath, "-e", "process.stdout.write(JSON.stringify({ valid: true }))"];

/** Spawning the validating CLI takes a while on a loaded machine; a hang is what these tests catch. */
const TEST_TIMEOUT_MS = 60_000;

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "openclaw-runtime-"));
  await mkdir(join(dir, "platform"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function runtimeWith(reload: () => Promise<void>): OpenClawRuntime {
  const settings: PlatformSettings = {
    backendUrl: "http://127.0.0.1:4000/",
    classifyUrl: "http://127.0.0.1:4000/api/hooks/classify",
    model: "openai/gpt-4o-mini",
    pluginDir: join(dir, "plugin"),
    workspace: join(dir, "workspace"),
    logFile: join(dir, "openclaw.log"),
    runtimePort: 18789,
    permissionWaitSeconds: 300,
  };
  return new OpenClawRuntime({
    configPath: join(dir, "openclaw.json"),
    stateDir: dir,
    cliArgv: ACCEPTING_CLI,
    cliEnv: process.env,
    settings,
    rpc: {} as GatewayRpc,
    reload,
  });
}

const storedConfig = async () => JSON.parse(await readFile(join(dir, "openclaw.json"), "utf8"));

describe("OpenClawRuntime configuration writes", () => {
  it(
    "a reload that is not confirmed restarts the runtime, whose start prepares the file: the write still completes",
    async () => {
      const events: string[] = [];
      const runtime: OpenClawRuntime = runtimeWith(async () => {
        // What reload.ts does when the runtime does not confirm: supervisor.restart(), whose start runs
        // prepareConfig (a write of its own) before the process is spawned again.
        events.push("restart");
        events.push(`prepared ${(await runtime.prepareConfig()).length} changes`);
      });
      const written = await runtime.updateConfig((config) => {
        config.ui = { assistant: { name: "Fern" } };
      });
      expect(written.ui).toEqual({ assistant: { name: "Fern" } });
      // The write had put the platform's keys in place already: the start found nothing to change.
      expect(events).toEqual(["restart", "prepared 0 changes"]);
      expect((await storedConfig()).ui).toEqual({ assistant: { name: "Fern" } });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "writes one at a time, each followed by its own reload, in order; the file holds the last",
    async () => {
      const events: string[] = [];
      let reloading = 0;
      const runtime = runtimeWith(async () => {
        reloading++;
        expect(reloading).toBe(1);
        events.push(`reload sees ${(await storedConfig()).ui.assistant.name}`);
        await new Promise((resolve) => setImmediate(resolve));
        reloading--;
      });
      const names = ["Ash", "Birch", "Cedar"];
      const results = await Promise.all(
        names.map((name) =>
          runtime.updateConfig((config) => {
            config.ui = { assistant: { name } };
          }),
        ),
      );
      expect(results.map((config) => (config.ui as { assistant: { name: string } }).assistant.name)).toEqual(
        names,
      );
      // Three reloads, none at the same time; the last saw the last write.
      expect(events).toHaveLength(3);
      expect(events[2]).toBe("reload sees Cedar");
      expect((await storedConfig()).ui).toEqual({ assistant: { name: "Cedar" } });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a refused configuration writes nothing and reloads nothing",
    async () => {
      let reloads = 0;
      const runtime = runtimeWith(async () => {
        reloads++;
      });
      await runtime.prepareConfig();
      const before = await storedConfig();
      const refusing = new OpenClawRuntime({
        ...runtime.options,
        cliArgv: [
          process.execPath,
          "-e",
          "process.stdout.write(JSON.stringify({ valid: false, issues: [{ path: 'ui', message: 'no' }] }))",
        ],
      });
      await expect(
        refusing.updateConfig((config) => {
          config.ui = { assistant: { name: "Elm" } };
        }),
      ).rejects.toThrow("OpenClaw refused the configuration: ui: no");
      expect(reloads).toBe(0);
      expect(await storedConfig()).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );
});
