import { describe, expect, it } from "vitest";
import { z } from "zod";
import { csv, flag, parseEnv, port, positiveInt, postgresUrl } from "./env";
import { ConfigError } from "./errors";

const schema = z.object({
  WEB_PORT: port(3000),
  LIMIT: positiveInt(5),
  ENABLED: flag(true),
  HOSTS: csv(),
  DATABASE_URL: postgresUrl().optional(),
});

describe("parseEnv", () => {
  it("applies defaults and treats empty strings as unset", () => {
    expect(parseEnv(schema, { WEB_PORT: "", HOSTS: " a, ,b " })).toEqual({
      WEB_PORT: 3000,
      LIMIT: 5,
      ENABLED: true,
      HOSTS: ["a", "b"],
      DATABASE_URL: undefined,
    });
  });

  it("parses given values", () => {
    const parsed = parseEnv(schema, {
      WEB_PORT: "8081",
      LIMIT: "12",
      ENABLED: "off",
      DATABASE_URL: "postgres://u@h/db",
    });
    expect(parsed).toMatchObject({
      WEB_PORT: 8081,
      LIMIT: 12,
      ENABLED: false,
      DATABASE_URL: "postgres://u@h/db",
    });
  });

  it("names every bad variable and what was given", () => {
    let error: unknown;
    try {
      parseEnv(schema, { WEB_PORT: "abc", LIMIT: "0", ENABLED: "maybe", DATABASE_URL: "mysql://x" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems).toHaveLength(4);
    expect(message).toContain('WEB_PORT: must be a port number (1-65535) (got "abc")');
    expect(message).toContain('LIMIT: must be a positive whole number (got "0")');
    expect(message).toContain("ENABLED: must be true or false");
    expect(message).toContain("DATABASE_URL: must be a postgres:// URL");
  });

  it("refuses a port out of range", () => {
    expect(() => parseEnv(schema, { WEB_PORT: "70000" })).toThrow(/WEB_PORT/);
  });
});
