import { DrizzleQueryError } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { isDatabaseError } from "./db-errors";
import { createLogger } from "./logger";

const HASH = "$2b$10$abcdefghijklmnopqrstuvSECRETHASHxyz0123456789abcdefgh";
const SQL = 'insert into "users" ("id", "email", "password_hash") values ($1, $2, $3)';

/** A failed insert as drizzle-orm 0.45 throws it: pg's error as `cause`, every parameter in message and `params`. */
function failedInsert(): DrizzleQueryError {
  const pgError = new pg.DatabaseError('invalid byte sequence for encoding "UTF8": 0x00', 100, "error");
  Object.assign(pgError, { severity: "ERROR", code: "22021" });
  return new DrizzleQueryError(SQL, ["usr_1", "a@example.com", HASH], pgError);
}

function capture() {
  const lines: string[] = [];
  const logger = createLogger("logger-test", "info", { write: (line) => lines.push(line) });
  return { logger, lines };
}

describe("createLogger: a failed query's parameters never reach a line", () => {
  it("logs a DrizzleQueryError's SQL, type, cause and frames, without its params", () => {
    const { logger, lines } = capture();
    const err = failedInsert();
    expect(err.message).toContain(HASH); // what drizzle puts there
    logger.error({ err, requestId: "r1" }, "unhandled error");
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(HASH);
    expect(lines[0]).not.toContain("SECRETHASH");
    expect(lines[0]).not.toContain("params:");
    const logged = JSON.parse(lines[0]).err;
    expect(logged.type).toBe("DrizzleQueryError");
    expect(logged.params).toBeUndefined();
    expect(logged.query).toBe(SQL);
    expect(logged.message).toBe(`Failed query: ${SQL}: invalid byte sequence for encoding "UTF8": 0x00`);
    expect(logged.stack).toContain(`Failed query: ${SQL}\n    at `);
    // the original error is left as it was
    expect(err.params).toEqual(["usr_1", "a@example.com", HASH]);
  });

  it("also when the query error is wrapped as a cause, nested, or logged without a message", () => {
    const { logger, lines } = capture();
    const wrapped = new Error("sign-up failed", {
      cause: new Error("insert failed", { cause: failedInsert() }),
    });
    logger.error({ err: wrapped }, "unhandled error");
    logger.error(failedInsert());
    logger.warn({ err: failedInsert() });
    logger.error({ err: new AggregateError([failedInsert()], "all failed") }, "aggregate");
    for (const line of lines) {
      expect(line).not.toContain(HASH);
      expect(line).not.toContain("params:");
    }
    expect(JSON.parse(lines[0]).err.message).toContain(`sign-up failed: insert failed: Failed query: ${SQL}`);
    expect(JSON.parse(lines[1]).msg).toBe(`Failed query: ${SQL}`);
  });

  it("leaves every other error as pino's serializer writes it", () => {
    const { logger, lines } = capture();
    const err = Object.assign(new Error("no AI provider is configured", { cause: new Error("inner") }), {
      code: "E_CONF",
      params: ["kept"],
    });
    logger.error({ err }, "failed");
    const logged = JSON.parse(lines[0]).err;
    expect(logged).toMatchObject({
      type: "Error",
      message: "no AI provider is configured: inner",
      code: "E_CONF",
      params: ["kept"],
    });
    expect(logged.stack).toContain("caused by: Error: inner");
  });
});

describe("isDatabaseError", () => {
  it("recognizes a DrizzleQueryError, a pg server error, and either as a cause; not an ordinary error", () => {
    const pgError = Object.assign(new pg.DatabaseError("boom", 10, "error"), {
      severity: "ERROR",
      code: "XX000",
    });
    expect(isDatabaseError(failedInsert())).toBe(true);
    expect(isDatabaseError(pgError)).toBe(true);
    expect(isDatabaseError(new Error("wrapped", { cause: failedInsert() }))).toBe(true);
    expect(isDatabaseError(new Error("agent is busy"))).toBe(false);
    expect(isDatabaseError(Object.assign(new Error("ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(isDatabaseError("Failed query")).toBe(false);
  });
});
