import { resolve } from "node:path";
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
  START_SERVICES: csv().pipe(
    z
      .array(z.enum(SERVICES, `must list only ${SERVICES.join(", ")}`))
      .transform((list) => (list.length > 0 ? [...new Set(list)] : [...SERVICES])),
  ),
});

export type LauncherConfig = z.infer<typeof envSchema> & { dataDir: string; root: string };

/** The launcher's own variables; a bad one stops the start with its name in the message. */
export function loadLauncherConfig(
  root: string,
  env: Record<string, string | undefined> = process.env,
): LauncherConfig {
  const parsed = parseEnv(envSchema, env);
  return { ...parsed, root, dataDir: resolve(root, parsed.DATA_DIR ?? ".data") };
}
