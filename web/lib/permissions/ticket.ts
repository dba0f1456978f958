/**
 * Tickets of the backend's permission WebSocket (`?userId=<id>&token=<ticket>`), issued to a signed-in user
 * by `GET /api/permissions/ws-ticket`. A copy of the signer in backend/src/permissions/ticket.ts (the web
 * never imports backend code); ticket.test.ts proves a ticket signed here opens the backend's socket.
 *
 * Format: `<base64url(userId)>.<expiresAtMs>.<hex HMAC-SHA256>` over
 * `permissions-ws-ticket:v1:<base64url(userId)>.<expiresAtMs>`, keyed with `HMAC_SECRET`, else
 * `INTERNAL_API_KEY` (the user-context key both services share); valid for 60 s.
 */
import { hmacHex } from "@svc/common";

export const PERMISSION_TICKET_PURPOSE = "permissions-ws-ticket:v1";
export const PERMISSION_TICKET_TTL_MS = 60_000;

/** A ticket for `userId`, valid until `expiresAtMs` (Unix ms). Same output as the backend's signer. */
export function signPermissionTicket(secret: string, userId: string, expiresAtMs: number): string {
  const payload = `${Buffer.from(userId, "utf8").toString("base64url")}.${Math.trunc(expiresAtMs)}`;
  return `${payload}.${hmacHex(secret, `${PERMISSION_TICKET_PURPOSE}:${payload}`)}`;
}
