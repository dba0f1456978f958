import { ConfigError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { loadWebConfig } from "../infra/config";
import { quotaBytesOfPlan } from "./config";

const base = {
  DATABASE_URL: "postgres://user:password@127.0.0.1:1/none",
  SESSION_SECRET: "session-secret-0123456789abcdef",
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadWebConfig({ ...base, ...env });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe("files configuration", () => {
  it("defaults: 25 MiB uploads, 10 MiB quota for every plan, local storage under DATA_DIR", () => {
    const config = loadWebConfig(base);
    expect(config.FILE_MAX_BYTES).toBe(25 * 1024 * 1024);
    expect(config.FILES_STORAGE).toBe("local");
    expect(config.FILES_DIR).toBeUndefined();
    expect(quotaBytesOfPlan(config, "solo")).toBe(10 * 1024 * 1024);
    expect(quotaBytesOfPlan(config, "enterprise")).toBe(10 * 1024 * 1024);
  });

  it("FILE_QUOTA_MB_<PLAN> sets one plan's quota (plan upper-cased, other characters as _)", () => {
    const config = loadWebConfig({
      ...base,
      FILE_QUOTA_MB: "20",
      FILE_QUOTA_MB_TEAM: "100",
      FILE_QUOTA_MB_PRO_PLUS: "500",
    });
    expect(quotaBytesOfPlan(config, "team")).toBe(100 * 1024 * 1024);
    expect(quotaBytesOfPlan(config, "pro-plus")).toBe(500 * 1024 * 1024);
    expect(quotaBytesOfPlan(config, "solo")).toBe(20 * 1024 * 1024);
  });

  it("names each bad variable", () => {
    expect(problemsOf({ FILE_QUOTA_MB_TEAM: "lots", FILE_MAX_BYTES: "0" })).toEqual([
      'FILE_MAX_BYTES: must be a positive whole number (got "0")',
    ]);
    expect(problemsOf({ FILE_QUOTA_MB_TEAM: "lots" })).toEqual([
      'FILE_QUOTA_MB_TEAM: must be a positive whole number (got "lots")',
    ]);
    expect(problemsOf({ FILES_STORAGE: "ftp" })).toEqual(['FILES_STORAGE: must be local or s3 (got "ftp")']);
    expect(problemsOf({ FILES_STORAGE: "s3" })).toEqual(["S3_BUCKET: is required when FILES_STORAGE=s3"]);
    expect(problemsOf({ FILES_STORAGE: "s3", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "k" })).toEqual([
      "S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither",
    ]);
    expect(problemsOf({ FILES_STORAGE: "s3", S3_BUCKET: "b", S3_ENDPOINT: "ftp://x" })).toEqual([
      'S3_ENDPOINT: must be an http(s) URL (got "ftp://x")',
    ]);
  });
});
