import { csv, parseEnv, port, positiveInt, serviceEnv } from "@svc/common";
import { z } from "zod";

export const envSchema = z.object({
  SUMMARIZER_PORT: port(4100),
  ...serviceEnv(),
  /** Largest page read, after decompression. */
  SUMMARIZER_MAX_BYTES: positiveInt(5 * 1024 * 1024),
  /** Deadline of one page fetch, redirects and body included. */
  SUMMARIZER_FETCH_TIMEOUT_MS: positiveInt(10_000),
  /** Hosts fetched even when they resolve to loopback or private addresses. */
  OUTBOUND_ALLOW_HOSTS: csv(),
  SUMMARIZER_PAYMENT_NETWORK: z.string().default("base"),
  SUMMARIZER_PAYMENT_CURRENCY: z.string().default("USDC"),
  SUMMARIZER_PAY_TO: z.string().optional(),
  SUMMARIZER_PAYMENT_NOTE: z
    .string()
    .default("This service does not charge per call itself; paid access goes through the platform gateway."),
});

export type SummarizerConfig = z.infer<typeof envSchema>;

/** The summarizer's configuration, parsed once at start. It has no database. */
export function loadSummarizerConfig(
  env: Record<string, string | undefined> = process.env,
): SummarizerConfig {
  return parseEnv(envSchema, env);
}
