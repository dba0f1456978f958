import { logLevel, parseEnv, port } from "@svc/common";
import { z } from "zod";

export const envSchema = z.object({
  SUMMARIZER_PORT: port(4100),
  LOG_LEVEL: logLevel(),
  HOST: z.string().default("127.0.0.1"),
});

export type SummarizerConfig = z.infer<typeof envSchema>;

/** The summarizer's configuration, parsed once at start. It has no database. */
export function loadSummarizerConfig(
  env: Record<string, string | undefined> = process.env,
): SummarizerConfig {
  return parseEnv(envSchema, env);
}
