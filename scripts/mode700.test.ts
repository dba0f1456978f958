import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { afterAll, describe, expect, it } from "vitest";
import { getJson, type LauncherRun, runLauncher, stopLauncher } from "./testing/launcher";

const root = fileURLToPath(new URL("..", import.meta.url));
const cleanups: Array<() => Promise<unknown>> = [];
let run: LauncherRun | undefined;

afterAll(async () => {
  if (run && run.child.exitCode === null) await stopLauncher(run);
  for (const step of cleanups.reverse()) await step().catch(() => undefined);
});

/** A copy of the checkout (tracked and untracked, not ignored files) with node_modules hard-linked. */
async function cloneInto(target: string): Promise<void> {
  const listed = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
    cwd: root,
    encoding: "utf8",
  });
  for (const file of listed.split("\0").filter(Boolean)) {
    if (!existsSync(join(root, file))) continue;
    await mkdir(dirname(join(target, file)), { recursive: true });
    await copyFile(join(root, file), join(target, file));
  }
  // Hard links: the files' real paths are inside the mode-700 directory, like a real install there.
  execFileSync("cp", ["-al", join(root, "node_modules"), join(target, "node_modules")]);
}

describe("a checkout under a mode-700 directory, running as root", () => {
  it.runIf(process.getuid?.() === 0)(
    "npm start and npm test still reach embedded PostgreSQL",
    async () => {
      await mkdir(join(root, ".data"), { recursive: true });
      const outer = await mkdtemp(join(root, ".data", "mode700-"));
      cleanups.push(() => rm(outer, { recursive: true, force: true }));
      execFileSync("chmod", ["700", outer]);
      const clone = join(outer, "app");
      await cloneInto(clone);

      const ports = { BACKEND_PORT: String(await freePort()), SUMMARIZER_PORT: String(await freePort()) };
      run = runLauncher(clone, { ...ports, START_SERVICES: "backend,summarizer", DATA_DIR: "" });
      await run.waitFor("Press Ctrl-C to stop.", 120_000);
      const relocated = /data in (\/var\/tmp\/svc-postgres-[0-9a-f]+\/data)/.exec(run.stdout())?.[1];
      expect(relocated, run.stdout()).toBeDefined();
      cleanups.push(() => rm(dirname(relocated as string), { recursive: true, force: true }));
      const health = await getJson(`http://127.0.0.1:${ports.BACKEND_PORT}/health`);
      expect(health.body).toMatchObject({ status: "ok", database: "ok" });
      expect(await stopLauncher(run)).toBe(0);

      // The test harness from the same checkout: its own cluster, binaries run from a readable copy.
      const tests = spawnSync(
        process.execPath,
        ["node_modules/vitest/vitest.mjs", "run", "drizzle/migrate.test.ts"],
        {
          cwd: clone,
          env: { ...process.env, DATABASE_URL: "", TEST_DATABASE_URL: "" },
          encoding: "utf8",
          timeout: 120_000,
        },
      );
      expect(tests.stdout.trim().split("\n").at(-1), tests.stdout + tests.stderr).toBe("3 passed, 0 failed");
      expect(tests.status).toBe(0);
    },
    300_000,
  );
});
