import { logLevel, parseEnv, port } from "@svc/common";
import { z } from "zod";

export const envSchema = z.object({
  WRAPPER_PORT: port(8080),
  RUNTIME_PORT: port(18789),
  LOG_LEVEL: logLevel(),
  HOST: z.string().default("0.0.0.0"),
  WRAPPER_ADMIN_PASSWORD: z.string().optional(),
});

export type WrapperConfig = z.infer<typeof envSchema>;

/**
 * The wrapper's configuration, parsed once at start. The wrapper's server itself is issue #6; the launcher
 * does not start it (agents get one each from the hosting driver, issue #7).
 */
export function loadWrapperConfig(env: Record<string, string | undefined> = process.env): WrapperConfig {
  return parseEnv(envSchema, env);
}
