import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { loadWebConfig } from "./index";

// Issue #12 item 12: in production the user-context key must be a secret of its own.
const webDir = fileURLToPath(new URL("../..", import.meta.url));
const base = {
  DATABASE_URL: "postgres://user:password@127.0.0.1:1/none",
  SESSION_SECRET: "session-secret-0123456789abcdef",
};
const INTERNAL_API_KEY = "internal-key-0123456789abcdef";
const HMAC_SECRET = "hmac-secret-0123456789abcdef";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadWebConfig({ ...base, ...env });
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
    const same = problemsOf({ NODE_ENV: "production", INTERNAL_API_KEY, HMAC_SECRET: INTERNAL_API_KEY });
    expect(same).toEqual(["HMAC_SECRET: must differ from INTERNAL_API_KEY when NODE_ENV=production"]);
    expect(same.join("")).not.toContain(INTERNAL_API_KEY);
  });

  it("passes with a distinct HMAC_SECRET; outside production the fallback to INTERNAL_API_KEY stays", () => {
    expect(problemsOf({ NODE_ENV: "production", INTERNAL_API_KEY, HMAC_SECRET })).toEqual([]);
    expect(problemsOf({ NODE_ENV: "production", HMAC_SECRET })).toEqual([]);
    for (const NODE_ENV of ["development", "test", ""]) {
      expect(problemsOf({ NODE_ENV, INTERNAL_API_KEY }), NODE_ENV).toEqual([]);
      expect(problemsOf({ NODE_ENV, INTERNAL_API_KEY, HMAC_SECRET: INTERNAL_API_KEY }), NODE_ENV).toEqual([]);
    }
  });

  it("the web server refuses to start, saying why, before Next.js is loaded", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
      cwd: webDir,
      env: {
        ...process.env,
        ...base,
        NODE_ENV: "production",
        INTERNAL_API_KEY,
        HMAC_SECRET: "",
        // Were the configuration accepted, the process would still exit (server.ts refuses port 0 after it).
        WEB_PORT: "0",
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
      "web: invalid configuration: HMAC_SECRET: must be set when NODE_ENV=production (a secret of its own, not INTERNAL_API_KEY)",
    );
    expect(output).not.toContain(INTERNAL_API_KEY);
  });
});
