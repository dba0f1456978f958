import { type Logger, pino } from "pino";

export type { Logger };

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Field paths that must never reach a log line. */
const REDACT = [
  "password",
  "token",
  "secret",
  "apiKey",
  "privateKey",
  "cookie",
  "authorization",
  "*.password",
  "*.token",
  "*.secret",
  "*.apiKey",
  "*.privateKey",
  "*.cookie",
  "*.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
];

/**
 * Structured JSON logs, one line per event, with secrets redacted. `LOG_LEVEL=silent` turns them off.
 * `destination` (default standard output) receives each line: tests read what was logged through it.
 */
export function createLogger(
  service: string,
  level: LogLevel = "info",
  destination?: { write(line: string): void },
): Logger {
  const options = {
    name: service,
    level,
    base: { service },
    redact: { paths: REDACT, censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}
