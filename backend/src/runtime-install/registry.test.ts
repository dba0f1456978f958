/**
 * The installer against the real npm registry: OpenClaw at the managed baseline with the registry's Node 22.
 * Slow (1-2 minutes, 1.2 GB) into a temporary directory; with RUNTIMES_DIR set (CI exports it and runs
 * `npm run runtime:install` first) it finds that install and only checks it.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { MANAGED_BASELINE_VERSION } from "@svc/common/runtime-version";
import { afterAll, describe, expect, it } from "vitest";
import { ensureRuntime, meetsMinimum, type RuntimeInstallProgress } from "./index";

const run = promisify(execFile);
const shared = process.env.RUNTIMES_DIR;
let ownDir: string | null = null;

afterAll(async () => {
  if (ownDir) await rm(ownDir, { recursive: true, force: true });
});

describe("ensureRuntime with the real npm registry", () => {
  it("two concurrent callers get one install of OpenClaw and Node 22, and it runs", {
    timeout: 15 * 60_000,
  }, async () => {
    if (!shared) ownDir = await mkdtemp(join(tmpdir(), "svc-runtime-registry-"));
    const runtimesDir = shared ? resolve(shared) : (ownDir as string);
    const steps: RuntimeInstallProgress["step"][][] = [[], []];
    const [a, b] = await Promise.all(
      steps.map((seen) =>
        ensureRuntime({
          runtimesDir,
          version: MANAGED_BASELINE_VERSION,
          onProgress: (p) => seen.push(p.step),
        }),
      ),
    );
    expect(b).toEqual(a);
    expect(a.dir).toBe(join(runtimesDir, `openclaw-${MANAGED_BASELINE_VERSION}`));
    // Installed now (one caller installs, the other waits) or found installed (both say nothing).
    const installers = steps.filter((seen) => seen.includes("installing_runtime"));
    if (installers.length > 0) {
      expect(installers).toHaveLength(1);
      expect(steps.find((seen) => !seen.includes("installing_runtime"))).toEqual(["waiting"]);
    } else {
      expect(steps).toEqual([[], []]);
    }

    const { stdout: nodeVersion } = await run(a.node, ["--version"]);
    expect(nodeVersion.trim()).toBe(a.nodeVersion);
    expect(a.nodeVersion).toMatch(/^v22\./);
    expect(meetsMinimum(a.nodeVersion, ">=22.14.0")).toBe(true);
    const { stdout: openclawVersion } = await run(a.command[0], [a.command[1], "--version"], {
      timeout: 60_000,
    });
    expect(openclawVersion).toContain(`OpenClaw ${MANAGED_BASELINE_VERSION}`);
  });
});
