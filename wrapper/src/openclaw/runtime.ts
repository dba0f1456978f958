/**
 * What the wrapper knows of the OpenClaw runtime it supervises: its configuration file (the platform's keys
 * kept in place, every write checked by `openclaw config validate --json` first), its reload, its RPC, and
 * the proof that the platform's permission plugin is loaded in the gateway process.
 */
import { randomBytes } from "node:crypto";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import {
  type ConfigObject,
  readRuntimeConfig,
  restoreRedacted,
  writeFileAtomic,
} from "../runtime/config-file";
import { parseCliJson, runCli } from "./cli";
import { applyPlatformConfig, PERMISSION_PLUGIN_ID, type PlatformSettings } from "./managed-config";
import type { GatewayRpc } from "./rpc";

/** A configuration OpenClaw refused: `issues` are its own words (`path: message`). */
export class InvalidConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`OpenClaw refused the configuration: ${issues.join("; ")}`);
    this.name = "InvalidConfigError";
  }
}

export interface OpenClawRuntimeOptions {
  configPath: string;
  stateDir: string;
  /** RUNTIME_CLI_COMMAND split into words. */
  cliArgv: string[];
  /** The CLI's environment (the runtime's, so it finds the same state and port). */
  cliEnv: NodeJS.ProcessEnv;
  settings: PlatformSettings;
  rpc: GatewayRpc;
  /** Makes the live runtime load a configuration just written (and confirms it); see reload.ts. */
  reload: () => Promise<void>;
}

export interface PluginStatus {
  loaded: boolean;
  /** Why it is not (the RPC's error), when not loaded. */
  reason?: string;
}

export class OpenClawRuntime {
  /** Configuration writes, one at a time (each reads the file the previous one wrote). */
  private writes: Promise<unknown> = Promise.resolve();
  /**
   * Reloads, one at a time and in the order of the writes they follow. Not in the writes' queue: a reload
   * that is not confirmed restarts the runtime, whose start prepares the file as a write (`prepareConfig`)
   * — inside the writes' queue that start waited for the write waiting for it, and the runtime stayed
   * "starting" for good.
   */
  private reloads: Promise<unknown> = Promise.resolve();

  constructor(readonly options: OpenClawRuntimeOptions) {}

  private serialize<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.writes.then(operation, operation);
    this.writes = result.catch(() => undefined);
    return result;
  }

  /** Writes with `write` (in the writes' queue), then has the runtime reload the file (in the reloads' queue). */
  private async writeAndReload(write: () => Promise<ConfigObject>): Promise<ConfigObject> {
    const config = await this.serialize(write);
    const reload = this.reloads.then(this.options.reload, this.options.reload);
    this.reloads = reload.catch(() => undefined);
    await reload;
    return config;
  }

  get rpc(): GatewayRpc {
    return this.options.rpc;
  }

  /** Asks OpenClaw whether `config` is valid; throws InvalidConfigError with its reasons when not. */
  async validate(config: ConfigObject): Promise<void> {
    const temp = join(
      this.options.stateDir,
      "platform",
      `.candidate-${process.pid}-${randomBytes(6).toString("hex")}.json`,
    );
    await writeFileAtomic(temp, `${JSON.stringify(config, null, 2)}\n`);
    try {
      const result = await runCli(this.options.cliArgv, ["config", "validate", "--json"], {
        ...this.options.cliEnv,
        OPENCLAW_CONFIG_PATH: temp,
      });
      let answer: { valid?: unknown; issues?: unknown };
      try {
        answer = parseCliJson(result.stdout) as typeof answer;
      } catch {
        throw new Error(
          `openclaw config validate failed (exit ${result.code}): ${result.stderr.trim().slice(0, 300)}`,
        );
      }
      if (answer.valid === true) return;
      const issues = Array.isArray(answer.issues)
        ? answer.issues.map((issue) => {
            const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
            return `${typeof path === "string" ? path : "<root>"}: ${String(message ?? "invalid")}`;
          })
        : ["invalid configuration"];
      throw new InvalidConfigError(issues);
    } finally {
      await unlink(temp).catch(() => undefined);
    }
  }

  /**
   * Before a start: the file on disk with the platform's keys in place, validated and written when it
   * changed. Returns the paths that were changed (empty once everything is in place).
   */
  prepareConfig(): Promise<string[]> {
    return this.serialize(async () => {
      const current = (await readRuntimeConfig(this.options.configPath)) ?? {};
      const { config, changed } = applyPlatformConfig(current, this.options.settings);
      if (changed.length === 0) return [];
      await this.validate(config);
      await writeFileAtomic(this.options.configPath, `${JSON.stringify(config, null, 2)}\n`);
      return changed;
    });
  }

  /**
   * A user's new full configuration: redacted secrets sent back keep their stored values, the platform's
   * keys are put back, OpenClaw validates it, then it replaces the file and the runtime reloads it. Nothing
   * is written when invalid.
   */
  writeUserConfig(incoming: ConfigObject): Promise<ConfigObject> {
    return this.writeAndReload(async () => {
      let stored: ConfigObject | null = null;
      try {
        stored = await readRuntimeConfig(this.options.configPath);
      } catch {
        // An unreadable old file has no secrets to keep; the new configuration replaces it.
      }
      return this.commit(restoreRedacted(incoming, stored) as ConfigObject);
    });
  }

  /** Changes the stored configuration with `mutate` (validated, written, reloaded like a user's write). */
  updateConfig(mutate: (config: ConfigObject) => void): Promise<ConfigObject> {
    return this.writeAndReload(async () => {
      const config = structuredClone((await readRuntimeConfig(this.options.configPath)) ?? {});
      mutate(config);
      return this.commit(config);
    });
  }

  /** The stored configuration (secrets included: never answer it to a client without `redact`). */
  async readConfig(): Promise<ConfigObject> {
    return (await readRuntimeConfig(this.options.configPath)) ?? {};
  }

  /** Validates and writes `candidate` with the platform's keys in place (the reload follows, see above). */
  private async commit(candidate: ConfigObject): Promise<ConfigObject> {
    const { config } = applyPlatformConfig(candidate, this.options.settings);
    await this.validate(config);
    await writeFileAtomic(this.options.configPath, `${JSON.stringify(config, null, 2)}\n`);
    return config;
  }

  /** Whether the permission plugin answers its status method inside the gateway process. */
  async pluginStatus(): Promise<PluginStatus> {
    try {
      const answer = await this.rpc.call<{ loaded?: unknown }>(`${PERMISSION_PLUGIN_ID}.status`, {}, 10_000);
      if (answer?.loaded === true) return { loaded: true };
      return { loaded: false, reason: "the permission plugin answered without loaded: true" };
    } catch (error) {
      return { loaded: false, reason: `the permission plugin is not loaded (${(error as Error).message})` };
    }
  }
}
