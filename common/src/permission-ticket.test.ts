import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hmacHex } from "./crypto";
import {
  PERMISSION_TICKET_PURPOSE,
  PERMISSION_TICKET_TTL_MS,
  signPermissionTicket,
  verifyPermissionTicket,
} from "./permission-ticket";

const SECRET = "ticket-secret-0123456789abcdef";
const NOW = Date.parse("2026-11-21T10:00:00.000Z");

describe("permission WebSocket tickets", () => {
  it("verify for their user and session until they expire", () => {
    const ticket = signPermissionTicket(SECRET, "usr_abc", "ses_123", NOW + PERMISSION_TICKET_TTL_MS);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.\d+\.[0-9a-f]{64}$/);
    expect(verifyPermissionTicket(SECRET, ticket, NOW)).toEqual({
      ok: true,
      userId: "usr_abc",
      sessionId: "ses_123",
      expiresAtMs: NOW + PERMISSION_TICKET_TTL_MS,
    });
    expect(verifyPermissionTicket(SECRET, ticket, NOW + PERMISSION_TICKET_TTL_MS - 1).ok).toBe(true);
    expect(verifyPermissionTicket(SECRET, ticket, NOW + PERMISSION_TICKET_TTL_MS)).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("refuse another key, a changed user, session or expiry, and malformed input", () => {
    const ticket = signPermissionTicket(SECRET, "usr_abc", "ses_123", NOW + 60_000);
    const [user, session, expires, mac] = ticket.split(".");
    const otherUser = Buffer.from("usr_xyz").toString("base64url");
    const otherSession = Buffer.from("ses_456").toString("base64url");
    expect(verifyPermissionTicket("another-secret", ticket, NOW)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifyPermissionTicket(SECRET, `${otherUser}.${session}.${expires}.${mac}`, NOW).ok).toBe(false);
    expect(verifyPermissionTicket(SECRET, `${user}.${otherSession}.${expires}.${mac}`, NOW).ok).toBe(false);
    expect(verifyPermissionTicket(SECRET, `${user}.${session}.${Number(expires) + 1}.${mac}`, NOW).ok).toBe(
      false,
    );
    for (const bad of [
      "",
      "a.b.c",
      `${user}.${expires}.${mac}`,
      `${user}.${session}.${expires}`,
      `${ticket}.x`,
      `${user}.${session}.${expires}.${mac.toUpperCase()}`,
    ]) {
      expect(verifyPermissionTicket(SECRET, bad, NOW), bad).toEqual({ ok: false, reason: "malformed" });
    }
    expect(verifyPermissionTicket(SECRET, `${"a".repeat(600)}.${session}.${expires}.${mac}`, NOW).ok).toBe(
      false,
    );
  });

  it("are not interchangeable with other signatures of the same key", () => {
    // The same payload signed without the purpose prefix (as another use of the key would) is refused.
    const payload = `${Buffer.from("usr_abc").toString("base64url")}.${Buffer.from("ses_1").toString("base64url")}.${NOW + 60_000}`;
    expect(verifyPermissionTicket(SECRET, `${payload}.${hmacHex(SECRET, payload)}`, NOW).ok).toBe(false);
    expect(
      verifyPermissionTicket(
        SECRET,
        `${payload}.${hmacHex(SECRET, `${PERMISSION_TICKET_PURPOSE}:${payload}`)}`,
        NOW,
      ).ok,
    ).toBe(true);
  });

  it("carry any user and session id", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 100 }),
        fc.string({ minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        (userId, sessionId, ttl) => {
          const ticket = signPermissionTicket(SECRET, userId, sessionId, NOW + ttl);
          const check = verifyPermissionTicket(SECRET, ticket, NOW);
          expect(check).toEqual({ ok: true, userId, sessionId, expiresAtMs: NOW + ttl });
        },
      ),
    );
  });
});
