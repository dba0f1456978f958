import { type Logger, pino } from "pino";
import { isQueryError, QUERY_PARAMS_MARKER, withoutQueryParams } from "./db-errors";

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

/** Whether `err`, or an error it holds (`cause`, `errors`, any other field), lists a failed query's parameters. */
function listsQueryParams(err: unknown, seen = new Set<unknown>()): boolean {
  if (!(err instanceof Error) || seen.has(err)) return false;
  seen.add(err);
  if (isQueryError(err) || err.message.includes(QUERY_PARAMS_MARKER)) return true;
  const held = [err.cause, ...Object.values(err)];
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors)) held.push(...errors);
  return held.some((value) => listsQueryParams(value, seen));
}

/**
 * A copy of `err` (same prototype, so the same type in the log) and of every error it holds, with a failed
 * query's parameters gone: drizzle's `params` dropped, and each message and stack cut where they list them.
 */
function withoutParams(err: Error, copies: Map<Error, Error>): Error {
  const known = copies.get(err);
  if (known) return known;
  const copy = Object.create(Object.getPrototypeOf(err)) as Error;
  copies.set(err, copy);
  const query = isQueryError(err);
  for (const key of Reflect.ownKeys(err)) {
    if (key === "stack" || key === "message" || (query && key === "params")) continue;
    const descriptor = Object.getOwnPropertyDescriptor(err, key);
    if (!descriptor) continue;
    const { value } = descriptor;
    if (value instanceof Error) descriptor.value = withoutParams(value, copies);
    else if (key === "errors" && Array.isArray(value)) {
      descriptor.value = value.map((inner) =>
        inner instanceof Error ? withoutParams(inner, copies) : inner,
      );
    }
    Object.defineProperty(copy, key, descriptor);
  }
  const message = withoutQueryParams(err.message);
  Object.defineProperty(copy, "message", { value: message, writable: true, configurable: true });
  if (typeof err.stack === "string") {
    // The stack opens with the message: swap in the cut one and keep the frames.
    const at = message === err.message ? -1 : err.stack.indexOf(err.message);
    const stack =
      at < 0 ? err.stack : err.stack.slice(0, at) + message + err.stack.slice(at + err.message.length);
    Object.defineProperty(copy, "stack", {
      value: withoutQueryParams(stack),
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * pino's error serializer, except that a failed query's parameters (drizzle's `DrizzleQueryError`: message
 * `Failed query: <SQL>\nparams: <values>`, and a `params` field), in the error or any error it wraps, never
 * reach the line: they carry ciphertext, password hashes, ids.
 */
function serializeError(err: unknown): unknown {
  if (typeof err === "string") return withoutQueryParams(err);
  if (!listsQueryParams(err)) return pino.stdSerializers.err(err as Error);
  try {
    return pino.stdSerializers.err(withoutParams(err as Error, new Map()));
  } catch {
    // an error whose fields cannot be copied: its type and cut message, never the parameters
    return { type: (err as Error).constructor?.name, message: withoutQueryParams((err as Error).message) };
  }
}

/**
 * Structured JSON logs, one line per event, with secrets redacted and a failed query's parameters left out
 * (`serializeError`). `LOG_LEVEL=silent` turns them off.
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
    serializers: { err: serializeError },
    hooks: {
      // Logging an error without a message makes its message the line's: cut a failed query's parameters.
      logMethod(this: Logger, args: Parameters<Logger["info"]>, method: Logger["info"]) {
        const [first] = args;
        if (args.length === 1 && typeof first === "object" && first !== null) {
          const err = first instanceof Error ? first : (first as { err?: unknown; msg?: unknown }).err;
          const given = first instanceof Error ? undefined : (first as { msg?: unknown }).msg;
          if (err instanceof Error && given === undefined && err.message.includes(QUERY_PARAMS_MARKER)) {
            return method.apply(this, [first, withoutQueryParams(err.message)]);
          }
        }
        return method.apply(this, args);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
