import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { loadBackendConfig } from "./config";
import { HMAC_SECRET, INTERNAL_API_KEY } from "./testing";

// Issue #12 item 12: in production the user-context key must be a secret of its own.
const root = fileURLToPath(new URL("../..", import.meta.url));
const DATABASE_URL = "postgres://user:password@127.0.0.1:1/none";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadBackendConfig({ DATABASE_URL, ...env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe("HMAC_SECRET in production", () => {
  it("is refused when unset or equal to INTERNAL_API_KEY, naming HMAC_SECRET and never the key", () => {
    expect(problemsOf({ NODE_ENV: "production", INTERNAL_API_KEY })).toEqual([
      "HMAC_SECRET: must be set when NODE_ENV=production (a secret of its own, not INTERNAL_API_KEY)",
    ]);
    expect(problemsOf({ NODE_ENV: "production" })).toHaveLength(1);
    const same = problemsOf({
      NODE_ENV: "production",
      INTERNAL_API_KEY,
      HMAC_SECRET: ` ${INTERNAL_API_KEY} `,
    });
    expect(same).toEqual(["HMAC_SECRET: must differ from INTERNAL_API_KEY when NODE_ENV=production"]);
    expect(same.join("")).not.toContain(INTERNAL_API_KEY);
  });

  it("passes with a distinct HMAC_SECRET (with or without an internal key)", () => {
    expect(problemsOf({ NODE_ENV: "production", INTERNAL_API_KEY, HMAC_SECRET })).toEqual([]);
    expect(problemsOf({ NODE_ENV: "production", HMAC_SECRET })).toEqual([]);
    expect(
      loadBackendConfig({ DATABASE_URL, NODE_ENV: "production", INTERNAL_API_KEY, HMAC_SECRET }),
    ).toMatchObject({ HMAC_SECRET, INTERNAL_API_KEY, NODE_ENV: "production" });
  });

  it("outside production the spec's fallback to INTERNAL_API_KEY stays", () => {
    for (const NODE_ENV of ["development", "test", ""]) {
      expect(problemsOf({ NODE_ENV, INTERNAL_API_KEY }), NODE_ENV).toEqual([]);
      expect(problemsOf({ NODE_ENV, INTERNAL_API_KEY, HMAC_SECRET: INTERNAL_API_KEY }), NODE_ENV).toEqual([]);
    }
    expect(problemsOf({ INTERNAL_API_KEY })).toEqual([]);
  });

  it("the backend process refuses to start, saying why, before it touches the database", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "backend/src/server.ts"], {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL,
        INTERNAL_API_KEY,
        HMAC_SECRET: INTERNAL_API_KEY,
        // Were the configuration accepted, the process would still exit (no such host to listen on).
        HOST: "no-such-host.invalid",
        JOB_WORKER_ENABLED: "false",
        WATCHDOG_ENABLED: "false",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(output).toContain(
      "backend: invalid configuration: HMAC_SECRET: must differ from INTERNAL_API_KEY when NODE_ENV=production",
    );
    expect(output).not.toContain(INTERNAL_API_KEY);
  });
});
