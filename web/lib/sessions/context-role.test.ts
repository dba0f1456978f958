/**
 * Issue #12 item 11: the role the web signs into the backend's user context. `admin` only for a proven
 * ADMIN_EMAILS address; an address someone merely registered, or an account flagged admin in the database
 * but absent from ADMIN_EMAILS, is signed as `user`. The calls go from a session, through the web's backend
 * client and a recording relay, to the real backend's admin route, whose check wants the role and the email.
 */
import { signUserContext } from "@svc/common";
import { users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { GET as sessionRoute } from "@/app/api/auth/session/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { answerJson, callBackend } from "../runtime/backend-client";
import { startTestBackend } from "../runtime/testing/backend";
import { findSessionUser, userContextRole } from "./service";

const INTERNAL_API_KEY = "role-internal-key-0123456789abcdef";
const HMAC_SECRET = "role-hmac-secret-0123456789abcdef";
const ADMIN_EMAILS = "boss@example.com,ops@example.com";

const backend = await startTestBackend({ INTERNAL_API_KEY, HMAC_SECRET, ADMIN_EMAILS });
const { config } = useWebTestContext({
  BACKEND_URL: backend.url,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  ADMIN_EMAILS,
});
afterAll(() => backend.close());

/** A signed-in account asks the backend's admin route; what the web sent and what the backend answered. */
async function adminListAs(email: string, fields: { verified: boolean; isAdmin?: boolean }) {
  const { user, token } = await signedInUser(email);
  await webContext()
    .db.update(users)
    .set({
      emailVerifiedAt: fields.verified ? new Date("2026-01-01T00:00:00Z") : null,
      isAdmin: !!fields.isAdmin,
    })
    .where(eq(users.id, user.id));
  const sessionUser = await findSessionUser(webContext(), token);
  if (!sessionUser) throw new Error("no session user");
  const before = backend.exchanges.length;
  const answer = await callBackend(config, {
    method: "GET",
    path: "/api/admin/users",
    user: sessionUser,
    timeoutMs: 10_000,
  });
  const exchanges = backend.exchanges.slice(before);
  expect(exchanges).toHaveLength(1);
  const headers = exchanges[0].headers;
  const context = {
    userId: headers["x-user-id"],
    userEmail: headers["x-user-email"],
    userRole: headers["x-user-role"],
  } as { userId: string; userEmail: string; userRole: string };
  return {
    user,
    status: answer.status,
    body: answerJson(answer) as Record<string, unknown>,
    context,
    signatureValid: headers["x-user-signature"] === signUserContext(HMAC_SECRET, context),
  };
}

const adminRequired = { error: "ADMIN_REQUIRED", message: "an administrator account is required" };

describe("the role signed into backend calls", () => {
  it("admin for a verified ADMIN_EMAILS address: the backend's admin route answers", async () => {
    const sent = await adminListAs("boss@example.com", { verified: true });
    expect(sent.context).toEqual({ userId: sent.user.id, userEmail: "boss@example.com", userRole: "admin" });
    expect(sent.signatureValid).toBe(true);
    expect(sent.status).toBe(200);
    expect((sent.body.users as { email: string }[]).map((u) => u.email)).toContain("boss@example.com");
  });

  it("user for an ADMIN_EMAILS address that was never verified: 403 ADMIN_REQUIRED", async () => {
    const sent = await adminListAs("ops@example.com", { verified: false });
    expect(sent.context.userRole).toBe("user");
    expect(sent.signatureValid).toBe(true);
    expect([sent.status, sent.body]).toEqual([403, adminRequired]);
  });

  it("user for a database admin flag outside ADMIN_EMAILS, and for everyone else", async () => {
    const flagged = await adminListAs("flagged@example.com", { verified: true, isAdmin: true });
    const plain = await adminListAs("plain@example.com", { verified: true });
    for (const sent of [flagged, plain]) {
      expect(sent.context.userRole).toBe("user");
      expect(sent.signatureValid).toBe(true);
      expect([sent.status, sent.body]).toEqual([403, adminRequired]);
    }
  });

  it("the session answer keeps its spec shape: the signed role is not shown", async () => {
    const { jar, user } = await signedInUser("shape@example.com");
    const res = await call(sessionRoute, { path: "/api/auth/session", jar });
    expect(await res.json()).toEqual({
      user: { id: user.id, name: "shape", email: "shape@example.com", isAdmin: false },
    });
  });

  it("userContextRole", () => {
    const verified = new Date("2026-01-01T00:00:00Z");
    expect(userContextRole({ email: "boss@example.com", emailVerifiedAt: verified }, config)).toBe("admin");
    expect(userContextRole({ email: "boss@example.com", emailVerifiedAt: null }, config)).toBe("user");
    expect(userContextRole({ email: "someone@example.com", emailVerifiedAt: verified }, config)).toBe("user");
  });
});
