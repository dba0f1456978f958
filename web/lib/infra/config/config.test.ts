import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@svc/common";
import { BASE_SEPOLIA_USDC, BASE_USDC } from "@svc/common/testing/fakes/x402";
import { describe, expect, it } from "vitest";
import { startRunningServer } from "../../../../common/testing/running-servers";
import { loadWebConfig } from "./index";

// Issue #12 item 12: in production the user-context key must be a secret of its own.
const webDir = fileURLToPath(new URL("../../..", import.meta.url));
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

// Issue #25 item 2: the MPP token's EIP-712 domain comes from mppx's asset table for the tokens it knows.
const CUSTOM_TOKEN = "0x00000000000000000000000000000000000c0FFE";

function mppTokenOf(env: Record<string, string>) {
  return loadWebConfig({ ...base, ...env }).mppToken;
}

describe("the MPP token's EIP-712 domain", () => {
  it("is mppx's table's for USDC on Base (the default) and on Base Sepolia, whatever the address's case", () => {
    expect(mppTokenOf({})).toEqual({ name: "USD Coin", version: "2" });
    expect(mppTokenOf({ MPP_CHAIN_ID: "8453", MPP_TOKEN_ADDRESS: BASE_USDC.toLowerCase() })).toEqual({
      name: "USD Coin",
      version: "2",
    });
    expect(mppTokenOf({ MPP_CHAIN_ID: "84532", MPP_TOKEN_ADDRESS: BASE_SEPOLIA_USDC })).toEqual({
      name: "USDC",
      version: "2",
    });
  });

  it("accepts MPP_TOKEN_NAME/MPP_TOKEN_VERSION equal to the table's, and refuses ones that contradict it", () => {
    const sepolia = { MPP_CHAIN_ID: "84532", MPP_TOKEN_ADDRESS: BASE_SEPOLIA_USDC };
    expect(problemsOf({ ...sepolia, MPP_TOKEN_NAME: "USDC", MPP_TOKEN_VERSION: "2" })).toEqual([]);
    expect(problemsOf({ ...sepolia, MPP_TOKEN_NAME: "USD Coin", MPP_TOKEN_VERSION: "1" })).toEqual([
      `MPP_TOKEN_NAME: MPP_TOKEN_ADDRESS ${BASE_SEPOLIA_USDC} on MPP_CHAIN_ID 84532 signs with EIP-712 name ` +
        `"USDC", not "USD Coin" (mppx's asset table); leave MPP_TOKEN_NAME unset`,
      `MPP_TOKEN_VERSION: MPP_TOKEN_ADDRESS ${BASE_SEPOLIA_USDC} on MPP_CHAIN_ID 84532 signs with EIP-712 ` +
        `version "2", not "1" (mppx's asset table); leave MPP_TOKEN_VERSION unset`,
    ]);
  });

  it("takes MPP_TOKEN_NAME/MPP_TOKEN_VERSION for a token outside the table (version 2 when unset)", () => {
    const custom = { MPP_CHAIN_ID: "84532", MPP_TOKEN_ADDRESS: CUSTOM_TOKEN };
    expect(mppTokenOf({ ...custom, MPP_TOKEN_NAME: "Test Dollar", MPP_TOKEN_VERSION: "1" })).toEqual({
      name: "Test Dollar",
      version: "1",
    });
    expect(mppTokenOf({ ...custom, MPP_TOKEN_NAME: "Test Dollar" })).toEqual({
      name: "Test Dollar",
      version: "2",
    });
  });

  it("refuses a token outside the table without MPP_TOKEN_NAME, mainnet's USDC on Base Sepolia included", () => {
    for (const [chainId, token] of [
      ["84532", CUSTOM_TOKEN],
      ["84532", BASE_USDC],
      ["8453", BASE_SEPOLIA_USDC],
    ]) {
      expect(problemsOf({ MPP_CHAIN_ID: chainId, MPP_TOKEN_ADDRESS: token })).toEqual([
        `MPP_TOKEN_NAME: must be set: MPP_TOKEN_ADDRESS ${token} on MPP_CHAIN_ID ${chainId} is not a token ` +
          "mppx's asset table knows, so its EIP-712 domain name (and MPP_TOKEN_VERSION, default 2) must be given",
      ]);
    }
  });

  it("the web server refuses to start with an unknown token and no MPP_TOKEN_NAME, saying why", async () => {
    const started = startRunningServer("web", {
      DATABASE_URL: process.env.DATABASE_URL as string,
      SESSION_SECRET: base.SESSION_SECRET,
      INTERNAL_API_KEY,
      HMAC_SECRET,
      MPP_CHAIN_ID: "84532",
      MPP_TOKEN_ADDRESS: CUSTOM_TOKEN,
    });
    const failure = await started.then(
      async (server) => {
        await server.stop();
        return "the web server started";
      },
      (err: Error) => err.message,
    );
    expect(failure).toContain("web server exited before it was ready");
    expect(failure).toContain(
      `web: invalid configuration: MPP_TOKEN_NAME: must be set: MPP_TOKEN_ADDRESS ${CUSTOM_TOKEN} on ` +
        "MPP_CHAIN_ID 84532 is not a token mppx's asset table knows",
    );
    // The helper builds the web app first when its sources changed.
  }, 300_000);
});
