/**
 * Database errors whose text must not reach a user or a log line as is. drizzle-orm wraps every failed query
 * in a `DrizzleQueryError` whose message is `Failed query: <SQL>\nparams: <every parameter>` (ciphertext,
 * password hashes, ids) and which keeps them as `params`; pg's own `DatabaseError` (SQLSTATE `code` and
 * `severity`) can quote values too. Detection is structural: drizzle's class sets no `name`, and a bundler
 * can rename the constructor.
 */

/** Where a DrizzleQueryError's message (and its stack's first lines) start listing the query's parameters. */
export const QUERY_PARAMS_MARKER = "\nparams:";

const MAX_DEPTH = 8;

/** Whether `err` itself is drizzle's failed-query error. */
export function isQueryError(err: unknown): err is Error & { query?: unknown; params?: unknown } {
  if (!(err instanceof Error)) return false;
  if (err.constructor?.name === "DrizzleQueryError" || err.name === "DrizzleQueryError") return true;
  if (typeof (err as { query?: unknown }).query === "string" && "params" in err) return true;
  return err.message.startsWith("Failed query: ") && err.message.includes(QUERY_PARAMS_MARKER);
}

/** Whether `err` itself is an error the PostgreSQL server returned (pg's DatabaseError). */
function isPgServerError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code, severity } = err as { code?: unknown; severity?: unknown };
  return typeof code === "string" && typeof severity === "string";
}

/** Whether `err`, or an error it wraps (`cause`, an AggregateError's `errors`), is a database query's failure. */
export function isDatabaseError(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > MAX_DEPTH) return false;
  if (isQueryError(err) || isPgServerError(err)) return true;
  if (err instanceof AggregateError && err.errors.some((inner) => isDatabaseError(inner, depth + 1)))
    return true;
  return isDatabaseError(err.cause, depth + 1);
}

/** `text` up to where it lists a failed query's parameters. */
export function withoutQueryParams(text: string): string {
  const at = text.indexOf(QUERY_PARAMS_MARKER);
  return at < 0 ? text : text.slice(0, at);
}
