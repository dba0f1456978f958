/**
 * Tickets of the permission WebSocket (`ws://HOST/ws/permissions?userId=<id>&token=<ticket>`), issued by the
 * web's `GET /api/permissions/ws-ticket`: browsers cannot set headers on a WebSocket, and the session cookie
 * does not reach a backend on another host, hence a short-lived ticket in the query string. Format:
 * `<b64url(userId)>.<b64url(sessionId)>.<expiresAtMs>.<hex HMAC-SHA256>`, keyed with the user-context key
 * (`HMAC_SECRET`, else `INTERNAL_API_KEY`) over `permissions-ws-ticket:v2:` + the rest: the purpose prefix
 * keeps it from ever passing for another signature of that key. The session it was issued to travels with
 * it, so a socket lives only as long as that session. The web signs, the backend's socket verifies.
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
