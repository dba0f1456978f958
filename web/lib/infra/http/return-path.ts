/**
 * Where sign-in returns to: the page the visitor asked for, carried as `/login?next=<path>`. Only a path
 * of this site is followed; anything that could leave it (`//other.example`, `/\other.example`, a scheme,
 * control characters) is dropped, so the parameter cannot send anyone elsewhere after signing in.
 */

/**
 * The header the web server (web/server.ts) sets to the path and query of every request, overwriting
 * anything a client sent: a layout has no other way to know the page asked for.
 */
export const REQUEST_PATH_HEADER = "x-svc-request-path";

/** Where a sign-in goes when it was not sent from a page. */
export const DEFAULT_RETURN_PATH = "/dashboard";

const MAX_RETURN_PATH_LENGTH = 2048;
const PLAIN_PATH = /^\/(?:[A-Za-z0-9_~-]+\/)*[A-Za-z0-9_~-]*$/;
const BASE = "http://return-path.invalid";

/** `value` as a path of this site (path, query, fragment), or null when it is not one or names the API. */
export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== "string" || value.length > MAX_RETURN_PATH_LENGTH) return null;
  // Browsers read a backslash as a slash: `/\evil.example` is another host to them.
  if (!value.startsWith("/") || value.startsWith("//")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE) return null;
  // A page, not an API answer (JSON in the browser) nor the sign-in page itself.
  if (url.pathname === "/api" || url.pathname.startsWith("/api/") || url.pathname === "/login") return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page that returns to `path` afterwards (plain `/login` for the default). */
export function loginPathFor(path: string | null): string {
  const next = safeReturnPath(path);
  return next && next !== DEFAULT_RETURN_PATH ? `/login?next=${encodeURIComponent(next)}` : "/login";
}

/**
 * The page a request asks for, from the request line's target: its path and query without Next's own
 * `_rsc` parameter (a client-side navigation's request carries it).
 */
export function requestedPagePath(target: string | undefined): string {
  // A plain path (no query, no dot segment, nothing to percent-encode) is its own page path.
  if (target !== undefined && PLAIN_PATH.test(target)) return target;
  let url: URL;
  try {
    url = new URL(target ?? "/", BASE);
  } catch {
    return "/";
  }
  url.searchParams.delete("_rsc");
  return `${url.pathname}${url.search}`;
}
