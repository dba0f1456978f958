import { csv, flag, httpUrl, logLevel, parseEnv, port, positiveInt, postgresUrl } from "@svc/common";
import { z } from "zod";

export const envSchema = z.object({
  BACKEND_PORT: port(4000),
  LOG_LEVEL: logLevel(),
  HOST: z.string().default("127.0.0.1"),
  DATABASE_URL: postgresUrl(),
  /** Bearer key of the backend's internal routes; `requireAuth` answers 500 while it is unset. */
  INTERNAL_API_KEY: z.string().optional(),
  /** Key of the user-context signature; falls back to INTERNAL_API_KEY. */
  HMAC_SECRET: z.string().optional(),
  /** Emails (case-insensitive) whose `x-user-email` passes the admin check. */
  ADMIN_EMAILS: csv(),
  /** 64 hex chars: encrypts agent gateway tokens at rest (shared with the web). */
  DATA_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters")
    .optional(),
  /** AI provider of `POST /api/ai/chat` (OpenAI-compatible chat completions). */
  AI_PROVIDER: z.string().default("openrouter"),
  AI_PROVIDER_URL: httpUrl().default("https://openrouter.ai/api/v1"),
  AI_PROVIDER_KEY: z.string().optional(),
  AI_PROVIDER_TIMEOUT_MS: positiveInt(30_000),
  /** Run the job worker inside this backend process (turn off when separate worker processes run). */
  JOB_WORKER_ENABLED: flag(true),
  /** Jobs one worker process runs at once. */
  JOB_WORKER_CONCURRENCY: positiveInt(4),
  /** Lanes this worker serves (comma list); all when empty. */
  JOB_WORKER_LANES: csv(),
  /** A job `running` longer than this is requeued (spec: 10 minutes). */
  JOB_STALE_AFTER_MS: positiveInt(10 * 60 * 1000),
  /** Safety-net poll when no notification arrives. */
  JOB_POLL_INTERVAL_MS: positiveInt(5_000),
  /** On SIGTERM, how long running jobs may finish before the rest go back to `queued`. */
  JOB_SHUTDOWN_GRACE_MS: positiveInt(10_000),
});

export type BackendConfig = z.infer<typeof envSchema>;

/** The backend's configuration, parsed once at start. */
export function loadBackendConfig(env: Record<string, string | undefined> = process.env): BackendConfig {
  return parseEnv(envSchema, env);
}
