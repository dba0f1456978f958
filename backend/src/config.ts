import { logLevel, parseEnv, port, postgresUrl } from "@svc/common";
import { z } from "zod";

export const envSchema = z.object({
  BACKEND_PORT: port(4000),
  LOG_LEVEL: logLevel(),
  HOST: z.string().default("127.0.0.1"),
  DATABASE_URL: postgresUrl(),
  INTERNAL_API_KEY: z.string().optional(),
});

export type BackendConfig = z.infer<typeof envSchema>;

/** The backend's configuration, parsed once at start. */
export function loadBackendConfig(env: Record<string, string | undefined> = process.env): BackendConfig {
  return parseEnv(envSchema, env);
}
