/**
 * Puts the fake npm (fake-npm-process.mjs) first on PATH in a directory of its own: `env()` is the environment an
 * install gets (PATH with it first, its knobs), `calls()` what it was asked to install.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const FAKE_NPM = fileURLToPath(new URL("./fake-npm-process.mjs", import.meta.url));

export interface FakeNpmCall {
  packages: string[];
  prefix: string;
  path: string;
}

export interface FakeNpm {
  binDir: string;
  logPath: string;
  env(knobs?: Record<string, string>): NodeJS.ProcessEnv;
  calls(): Promise<FakeNpmCall[]>;
}

export async function installFakeNpm(dir: string): Promise<FakeNpm> {
  const binDir = join(dir, "fake-npm-bin");
  const logPath = join(dir, "fake-npm.log");
  await mkdir(binDir, { recursive: true });
  await writeFile(join(binDir, "npm"), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_NPM}" "$@"\n`);
  await chmod(join(binDir, "npm"), 0o755);
  await writeFile(logPath, "");
  return {
    binDir,
    logPath,
    env: (knobs = {}) => ({
      ...process.env,
      PATH: [binDir, process.env.PATH].filter(Boolean).join(delimiter),
      FAKE_NPM_LOG: logPath,
      ...knobs,
    }),
    async calls() {
      const text = await readFile(logPath, "utf8");
      return text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FakeNpmCall);
    },
  };
}
