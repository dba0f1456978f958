/**
 * `npm run runtime:install`: installs the configured agent runtime (RUNTIME_VERSION under RUNTIMES_DIR)
 * unless it is there, and prints where it is. CI runs it once per run; tests then find it installed.
 */
import { parseEnv } from "@svc/common";
import { z } from "zod";
import { runtimeInstallEnv, runtimesDirOf } from "./config";
import { ensureRuntime } from "./index";

const say = (line: string) => process.stdout.write(`[runtime] ${line}\n`);

try {
  const config = parseEnv(z.object(runtimeInstallEnv));
  const runtime = await ensureRuntime({
    runtimesDir: runtimesDirOf(config),
    version: config.RUNTIME_VERSION,
    onProgress: (progress) => say(progress.message),
  });
  say(`the agent runtime ${runtime.version} is installed in ${runtime.dir}`);
  say(`node ${runtime.nodeVersion}: ${runtime.node}`);
  say(`entry: ${runtime.entry}`);
} catch (err) {
  process.stderr.write(`runtime:install: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
