/**
 * The platform's RPC URL as users may see it: RPC providers put the operator's key in the URL (Helius
 * `?api-key=`, Alchemy `/v2/<key>`, QuickNode `/<token>/`, `user:password@`), so every credential-looking
 * part is replaced by `***` before the URL leaves the server.
 */

export const MASK = "***";

/** Query names whose value is a credential whatever it looks like. */
const SECRET_NAME = /key|token|secret|pass|auth|sig|credential|access/i;

/** A value that looks like a key: 16+ characters of a key's alphabet, with both letters and digits. */
function looksLikeKey(value: string): boolean {
  return value.length >= 16 && /^[\w.~+/=-]+$/.test(value) && /\d/.test(value) && /[a-z]/i.test(value);
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * `raw` with its user name, password, credential-looking query values and path segments masked. A URL with nothing to mask comes back unchanged; one that does not parse comes back as `***`.
 */
export function maskUrlCredentials(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return MASK;
  }
  let masked = false;
  if (url.username) {
    url.username = MASK;
    masked = true;
  }
  if (url.password) {
    url.password = MASK;
    masked = true;
  }
  const params = [...url.searchParams];
  const secret = ([name, value]: [string, string]) =>
    value !== "" && (SECRET_NAME.test(name) || looksLikeKey(value));
  if (params.some(secret)) {
    url.search = new URLSearchParams(
      params.map((pair): [string, string] => [pair[0], secret(pair) ? MASK : pair[1]]),
    ).toString();
    masked = true;
  }
  const segments = url.pathname.split("/");
  if (segments.some((s) => looksLikeKey(decoded(s)))) {
    url.pathname = segments.map((s) => (looksLikeKey(decoded(s)) ? MASK : s)).join("/");
    masked = true;
  }
  return masked ? url.toString() : raw;
}
