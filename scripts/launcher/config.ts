import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseEnv as parseDotEnv } from "node:util";
import { csv, httpUrl, logLevel, optionalPort, parseEnv, port, postgresUrl } from "@svc/common";
import { z } from "zod";

export const SERVICES = ["backend", "web", "summarizer"] as const;
export type ServiceName = (typeof SERVICES)[number];

export const envSchema = z.object({
  WEB_PORT: port(3000),
  BACKEND_PORT: port(4000),
  SUMMARIZER_PORT: port(4100),
  WRAPPER_PORT: port(8080),
  HOST: z
    .string()
    .regex(/^[\w.:-]+$/, "must be a host name or address")
    .default("127.0.0.1"),
  DATABASE_URL: postgresUrl().optional(),
  EMBEDDED_PG_PORT: optionalPort(),
  DATA_DIR: z.string().optional(),
  LOG_LEVEL: logLevel(),
  BACKEND_URL: httpUrl().optional(),
  SUMMARIZER_URL: httpUrl().optional(),
  PUBLIC_URL: httpUrl().optional(),
  /** Passed on to the backend; the launcher only reads it to warn about shared-user local agents. */
  HOSTING_PROVIDER: z
    .enum(["local", "railway", "docker"], "must be local, railway or docker")
    .default("local"),
  START_SERVICES: csv().pipe(
    z
      .array(z.enum(SERVICES, `must list only ${SERVICES.join(", ")}`))
      .transform((list) => (list.length > 0 ? [...new Set(list)] : [...SERVICES])),
  ),
});

export type LauncherConfig = z.infer<typeof envSchema> & { dataDir: string; root: string };

/**
 * `.env` at the repository root, as `npm start` reads it: each of its variables not already in `env` is put
 * there (the environment wins; an empty value counts as unset everywhere). Returns the names it set; none
 * without the file.
 */
export function loadDotEnv(root: string, env: Record<string, string | undefined> = process.env): string[] {
  const file = join(root, ".env");
  if (!existsSync(file)) return [];
  const added: string[] = [];
  for (const [name, value] of Object.entries(parseDotEnv(readFileSync(file, "utf8")))) {
    if (value === undefined || env[name] !== undefined) continue;
    env[name] = value;
    added.push(name);
  }
  return added;
}

/**
 * The host name people open the platform at: `localhost` when the services listen on a loopback or every
 * address (passkeys refuse IP addresses: WebAuthn needs a domain), else HOST as given.
 */
export function publicHostOf(host: string): string {
  const local = ["0.0.0.0", "::", "::1", "localhost"].includes(host) || /^127\./.test(host);
  return local ? "localhost" : host;
}

/** PUBLIC_URL as set, else `http://<public host>:<WEB_PORT>` (the address `npm start` prints). */
export function publicUrlOf(config: Pick<LauncherConfig, "PUBLIC_URL" | "HOST" | "WEB_PORT">): string {
  return config.PUBLIC_URL ?? `http://${publicHostOf(config.HOST)}:${config.WEB_PORT}`;
}

/** The launcher's own variables; a bad one stops the start with its name in the message. */
export function loadLauncherConfig(
  root: string,
  env: Record<string, string | undefined> = process.env,
): LauncherConfig {
  const parsed = parseEnv(envSchema, env);
  return { ...parsed, root, dataDir: resolve(root, parsed.DATA_DIR ?? ".data") };
}

/**
 * The line `npm start` prints once when local agents would run as the platform's own OS user (it is not
 * root), so they could read its files, `.data/secrets.json` included; null otherwise.
 */
export function sharedUserNotice(config: Pick<LauncherConfig, "HOSTING_PROVIDER">, uid: number | undefined) {
  if (config.HOSTING_PROVIDER !== "local" || uid === 0 || uid === undefined) return null;
  return (
    `local agents run as this OS user (uid ${uid}) and can read the platform's files, .data/secrets.json ` +
    "included: for single-user development only; otherwise use HOSTING_PROVIDER=docker (or run as root: " +
    "each agent then gets its own OS user)"
  );
}
