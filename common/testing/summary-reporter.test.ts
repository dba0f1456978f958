import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatSummary } from "./summary-reporter";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("summary reporter", () => {
  it("formats the closing line", () => {
    expect(formatSummary({ passed: 12, failed: 0, skipped: 0 })).toBe("12 passed, 0 failed");
    expect(formatSummary({ passed: 3, failed: 2, skipped: 1 })).toBe("3 passed, 2 failed, 1 skipped");
  });

  it("a failing test makes `vitest run` exit non-zero and is counted on the last line", () => {
    // The real configuration (global setup with embedded PostgreSQL included), limited to the fixtures.
    const run = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run"], {
      cwd: root,
      env: { ...process.env, SVC_RUN_FIXTURES: "1", DATABASE_URL: "" },
      encoding: "utf8",
      timeout: 120_000,
    });
    const lines = run.stdout.trim().split("\n");
    expect(lines.at(-1)).toBe("1 passed, 1 failed");
    expect(run.status).not.toBe(0);
  }, 150_000);
});
