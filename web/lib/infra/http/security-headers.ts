/**
 * The security headers of every web answer (web/server.ts sets them before Next or a route handler runs).
 * Scripts: a fresh nonce per request and `'strict-dynamic'`; Next reads the nonce from the request's
 * `Content-Security-Policy` header and puts it on every script it renders, which is why every page is
 * rendered per request (app/layout.tsx: a prerendered page carries no nonce). `'self'` stays for browsers
 * older than CSP 3; no `'unsafe-inline'` or `'unsafe-eval'` for scripts. Styles allow `'unsafe-inline'`:
 * React renders `style={...}` as attributes no nonce can cover, and styles cannot run code. `frame-ancestors
 * 'none'` and `X-Frame-Options: DENY` keep approvals, keys and payments out of other sites' frames;
 * `Referrer-Policy: same-origin` keeps a URL's token (a verification link's) from reaching another site.
 */
import { randomBytes } from "node:crypto";

const NONCE_BYTES = 16;
/**
 * Random bytes from the CSPRNG taken 256 nonces at a time (one call per 256 answers instead of one per
 * answer, a measurable share of a gateway call); each byte serves one nonce only.
 */
let noncePool = Buffer.alloc(0);
let noncePoolOffset = 0;

/** A new script nonce: 128 random bits, base64. */
export function newNonce(): string {
  if (noncePoolOffset + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_BYTES * 256);
    noncePoolOffset = 0;
  }
  const nonce = noncePool.toString("base64", noncePoolOffset, noncePoolOffset + NONCE_BYTES);
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

/** The policy of each public URL around its nonce: written once, then only the nonce changes. */
const policies = new Map<string, [before: string, after: string]>();

/** The Content-Security-Policy of an answer whose scripts carry `nonce`. */
export function contentSecurityPolicy(nonce: string, publicUrl: string): string {
  let parts = policies.get(publicUrl);
  if (!parts) {
    // The permission WebSocket is on the web's own origin; 'self' covers it in CSP 3, not in older browsers.
    const socket = new URL(publicUrl);
    socket.protocol = socket.protocol === "https:" ? "wss:" : "ws:";
    const policy = [
      "default-src 'self'",
      "script-src 'self' 'nonce-\0' 'strict-dynamic'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data: blob:",
      "font-src 'self' data:",
      `connect-src 'self' ${socket.origin}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join("; ");
    const at = policy.indexOf("\0");
    parts = [policy.slice(0, at), policy.slice(at + 1)];
    policies.set(publicUrl, parts);
  }
  return `${parts[0]}${nonce}${parts[1]}`;
}

/** Every security header of an answer, by name (lower case). */
export function securityHeaders(nonce: string, publicUrl: string): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(nonce, publicUrl),
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
  };
}

/** The script nonce web/server.ts gave this request (from its Content-Security-Policy header), or null. */
export function nonceOf(request: Request): string | null {
  const policy = request.headers.get("content-security-policy") ?? "";
  return /'nonce-([A-Za-z0-9+/=_-]+)'/.exec(policy)?.[1] ?? null;
}
