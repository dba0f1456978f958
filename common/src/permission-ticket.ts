/**
 * Tickets of the permission WebSocket (`ws://HOST/ws/permissions?userId=<id>&token=<ticket>`): a short-lived
 * proof, issued by the web's `GET /api/permissions/ws-ticket` to a signed-in user, that the socket's
 * `userId` is that user. Browsers cannot set headers on a WebSocket, and the session cookie does not reach
 * a backend on another host, hence a ticket in the query string.
 *
 * Format: `<base64url(userId)>.<base64url(sessionId)>.<expiresAtMs>.<hex HMAC-SHA256>`, the HMAC taken over
 * `permissions-ws-ticket:v2:<base64url(userId)>.<base64url(sessionId)>.<expiresAtMs>` with the user-context key (`HMAC_SECRET`,
 * else `INTERNAL_API_KEY`: the secret web and backend already share). The purpose prefix keeps a ticket
 * from ever being mistaken for another signature made with the same key, such as a user-context one. The
 * session the ticket was issued to (the `sessions` row id, not its token) travels with it: a socket opened
 * with it lives only as long as that session (sign-out, a security event or an account claim ends it).
 *
 * The one signer and verifier: the web signs with it, the backend's socket verifies with it.
 */
import { hmacHex, safeEqual } from "./crypto";

export const PERMISSION_TICKET_PURPOSE = "permissions-ws-ticket:v2";
/** How long a ticket opens sockets after it was issued. */
export const PERMISSION_TICKET_TTL_MS = 60_000;
/** Longest ticket read (a user id is short); anything longer is refused before any HMAC is computed. */
const MAX_TICKET_LENGTH = 512;

/** A ticket for `userId`'s session `sessionId`, valid until `expiresAtMs` (Unix ms). */
export function signPermissionTicket(
  secret: string,
  userId: string,
  sessionId: string,
  expiresAtMs: number,
): string {
  const payload = `${encode(userId)}.${encode(sessionId)}.${Math.trunc(expiresAtMs)}`;
  return `${payload}.${hmacHex(secret, `${PERMISSION_TICKET_PURPOSE}:${payload}`)}`;
}

const encode = (value: string) => Buffer.from(value, "utf8").toString("base64url");
const decode = (value: string) => Buffer.from(value, "base64url").toString("utf8");

export type TicketCheck =
  | { ok: true; userId: string; sessionId: string; expiresAtMs: number }
  | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

/** Checks a ticket's signature (constant time) and expiry against `nowMs`; the user and session it was issued to. */
export function verifyPermissionTicket(secret: string, ticket: string, nowMs: number): TicketCheck {
  if (ticket.length > MAX_TICKET_LENGTH) return { ok: false, reason: "malformed" };
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.(\d{1,16})\.([0-9a-f]{64})$/.exec(ticket);
  if (!match) return { ok: false, reason: "malformed" };
  const [, encodedUser, encodedSession, expires, signature] = match;
  const payload = `${encodedUser}.${encodedSession}.${expires}`;
  if (!safeEqual(signature, hmacHex(secret, `${PERMISSION_TICKET_PURPOSE}:${payload}`))) {
    return { ok: false, reason: "bad_signature" };
  }
  const expiresAtMs = Number(expires);
  if (expiresAtMs <= nowMs) return { ok: false, reason: "expired" };
  const userId = decode(encodedUser);
  const sessionId = decode(encodedSession);
  if (userId === "" || sessionId === "") return { ok: false, reason: "malformed" };
  return { ok: true, userId, sessionId, expiresAtMs };
}
