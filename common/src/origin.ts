const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether a browser's `Origin` header names the platform's own public origin (the web's `PUBLIC_URL`).
 * A loopback public URL also accepts the other loopback names of the same scheme and port, so a local
 * install opened as `localhost` or `127.0.0.1` works either way: no other site can be served from there.
 */
export function isPublicOrigin(origin: string, publicUrl: string): boolean {
  const allowed = new URL(publicUrl);
  if (origin === allowed.origin) return true;
  if (!LOOPBACK_HOSTS.has(allowed.hostname)) return false;
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything malformed
  }
  return (
    given.origin === origin &&
    LOOPBACK_HOSTS.has(given.hostname) &&
    given.protocol === allowed.protocol &&
    given.port === allowed.port
  );
}
