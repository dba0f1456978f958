/** The web's copy of the ticket signer makes exactly the tickets the backend verifies. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  PERMISSION_TICKET_PURPOSE as BACKEND_PURPOSE,
  PERMISSION_TICKET_TTL_MS as BACKEND_TTL_MS,
  signPermissionTicket as backendSign,
  verifyPermissionTicket,
} from "../../../backend/src/permissions/ticket";
import { PERMISSION_TICKET_PURPOSE, PERMISSION_TICKET_TTL_MS, signPermissionTicket } from "./ticket";

const NOW = Date.parse("2026-11-21T10:00:00.000Z");

describe("web-signed permission tickets", () => {
  it("use the backend's purpose and lifetime", () => {
    expect(PERMISSION_TICKET_PURPOSE).toBe(BACKEND_PURPOSE);
    expect(PERMISSION_TICKET_TTL_MS).toBe(BACKEND_TTL_MS);
  });

  it("verify in the backend for their user, and equal the backend's own", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.integer({ min: 1, max: PERMISSION_TICKET_TTL_MS }),
        (secret, userId, ttl) => {
          const ticket = signPermissionTicket(secret, userId, NOW + ttl);
          expect(ticket).toBe(backendSign(secret, userId, NOW + ttl));
          expect(verifyPermissionTicket(secret, ticket, NOW)).toEqual({
            ok: true,
            userId,
            expiresAtMs: NOW + ttl,
          });
          expect(verifyPermissionTicket(secret, ticket, NOW + ttl).ok).toBe(false);
        },
      ),
    );
  });
});
