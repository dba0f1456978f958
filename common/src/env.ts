import { z } from "zod";
import { ConfigError } from "./errors";
import { LOG_LEVELS } from "./logger";
import { userContextSecretProblem } from "./user-context";

type Env = Record<string, string | undefined>;

/**
 * The platform's secret variables, of every service: they never reach an agent (a test checks every hosting
 * driver against them) nor a program the platform runs for itself (npm installing a runtime).
 */
export const PLATFORM_SECRET_NAMES = [
  "DATABASE_URL",
  "INTERNAL_API_KEY",
  "HMAC_SECRET",
  "SESSION_SECRET",
  "DATA_ENCRYPTION_KEY",
  "WALLET_ENCRYPTION_KEY",
  "AI_PROVIDER_KEY",
  "HOSTING_API_KEY",
  "HOSTING_WEBHOOK_SECRET",
  "KV_REST_API_TOKEN",
  "WATCHDOG_BOT_TOKEN",
  "MPP_SECRET",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "TEST_DATABASE_URL",
] as const;

/**
 * Parses environment variables with a zod object schema whose keys are the variable names. Empty strings
 * count as unset. Throws ConfigError naming every bad variable, so a service fails at start with one line.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  const input: Env = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    input[key] = value === undefined || value.trim() === "" ? undefined : value.trim();
  }
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? "environment");
    const given = input[name];
    return given === undefined ? `${name}: ${issue.message}` : `${name}: ${issue.message} (got "${given}")`;
  });
  throw new ConfigError(problems);
}

/**
 * `parseEnv` plus the production rule of the user-context key (`userContextSecretProblem`), for the
 * services that sign or check user contexts. Every problem at once: when a variable is bad, the secret
 * rule is judged on the variables as given and listed first.
 */
export function parseServiceEnv<S extends z.ZodObject>(schema: S, env: Env = process.env): z.infer<S> {
  let parsed: z.infer<S>;
  try {
    parsed = parseEnv(schema, env);
  } catch (err) {
    const secretProblem = err instanceof ConfigError ? userContextSecretProblem(env) : null;
    if (secretProblem) throw new ConfigError([secretProblem, ...(err as ConfigError).problems]);
    throw err;
  }
  const problem = userContextSecretProblem(parsed as Env);
  if (problem) throw new ConfigError([problem]);
  return parsed;
}

/** The variables every HTTP service reads alike: log level, the host it listens on, the metrics token. */
export function serviceEnv() {
  return {
    LOG_LEVEL: logLevel(),
    HOST: z.string().default("127.0.0.1"),
    /** When set, `GET /metrics` requires `Authorization: Bearer <METRICS_TOKEN>`. */
    METRICS_TOKEN: z.string().optional(),
  };
}

const portNumber = () =>
  z
    .string()
    .regex(/^\d+$/, "must be a port number (1-65535)")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 65535, "must be a port number (1-65535)");

/** A TCP port, 1 to 65535, with a default. */
export function port(defaultPort: number) {
  return portNumber().default(defaultPort);
}

/** A TCP port, 1 to 65535, or undefined when unset. */
export function optionalPort() {
  return portNumber().optional();
}

/** A positive integer with a default, e.g. a limit or a duration in milliseconds. */
export function positiveInt(defaultValue: number) {
  return z
    .string()
    .regex(/^\d+$/, "must be a positive whole number")
    .transform(Number)
    .refine((n) => n > 0 && Number.isSafeInteger(n), "must be a positive whole number")
    .default(defaultValue);
}

/** true/false, 1/0, yes/no, on/off. */
export function flag(defaultValue: boolean) {
  return z
    .enum(["true", "false", "1", "0", "yes", "no", "on", "off"], "must be true or false")
    .transform((v) => v === "true" || v === "1" || v === "yes" || v === "on")
    .default(defaultValue);
}

/** An absolute http(s) URL. */
export function httpUrl() {
  return z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
}

/** A PostgreSQL connection URL. */
export function postgresUrl() {
  return z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" });
}

/** A comma-separated list; items trimmed, empty items dropped. */
export function csv() {
  return z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .default([]);
}

/** A secret: at least 16 characters, so a typo or placeholder cannot pass for one. */
export function secret() {
  return z.string().min(16, "must be at least 16 characters");
}

/** LOG_LEVEL: one of pino's levels, default info. */
export function logLevel() {
  return z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`).default("info");
}
