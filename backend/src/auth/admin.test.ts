import { type UserContext, userContextHeaders } from "@svc/common";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { HMAC_SECRET, headersFor, testApp } from "../testing";
import { isAdminContext, isAdminEmail } from "./admin";

// `requireAdmin` through `GET /api/admin/users`.
const appWith = (adminEmails: string) => testApp({ env: { ADMIN_EMAILS: adminEmails } });
const app = appWith(" Boss@Example.com , ops@example.com");

function listAs(context: Partial<UserContext>, on = app) {
  const full = { userId: "usr_x", userEmail: "", userRole: "user", ...context };
  return request(on)
    .get("/api/admin/users")
    .set(headersFor({ id: full.userId, email: full.userEmail }, full.userRole));
}

const adminRequired = { error: "ADMIN_REQUIRED", message: "an administrator account is required" };

describe("requireAdmin", () => {
  it("role admin with an email in ADMIN_EMAILS passes, whatever the email's case", async () => {
    for (const email of ["boss@example.com", "BOSS@EXAMPLE.COM", "Boss@Example.com", "ops@Example.COM"]) {
      const res = await listAs({ userEmail: email, userRole: "admin" });
      expect(res.status, email).toBe(200);
      expect(res.body).toEqual({ users: [] });
    }
  });

  it("403 ADMIN_REQUIRED for other, empty, partial or joined emails, whatever the role says", async () => {
    for (const email of [
      "other@example.com",
      "",
      "boss@example.co",
      "oss@example.com",
      "boss@example.com.evil",
      "boss@example.com,ops@example.com",
    ]) {
      const res = await listAs({ userEmail: email, userRole: "admin" });
      expect(res.status, email).toBe(403);
      expect(res.body).toEqual(adminRequired);
    }
  });

  it("403 for an ADMIN_EMAILS email signed without role admin (the web signs it only for a proven address)", async () => {
    for (const userRole of ["user", "", "Admin", "administrator"]) {
      const res = await listAs({ userEmail: "boss@example.com", userRole });
      expect(res.status, userRole).toBe(403);
      expect(res.body).toEqual(adminRequired);
    }
    const noRoleHeader = await request(app)
      .get("/api/admin/users")
      .set({
        ...headersFor("internal"),
        "x-user-id": "usr_x",
        "x-user-email": "boss@example.com",
        // No x-user-role: the backend reads `user`, which is what this signature covers.
        "x-user-signature": userContextHeaders(HMAC_SECRET, {
          userId: "usr_x",
          userEmail: "boss@example.com",
          userRole: "user",
        })["x-user-signature"],
      });
    expect(noRoleHeader.status).toBe(403);
    expect(noRoleHeader.body).toEqual(adminRequired);
  });

  it("a role admin that is not covered by the signature is refused", async () => {
    const signedAsUser = userContextHeaders(HMAC_SECRET, {
      userId: "usr_x",
      userEmail: "boss@example.com",
      userRole: "user",
    });
    const res = await request(app)
      .get("/api/admin/users")
      .set({ ...headersFor("internal"), ...signedAsUser, "x-user-role": "admin" });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("INVALID_SIGNATURE");
  });

  it("403 for everyone while ADMIN_EMAILS is empty", async () => {
    const res = await listAs({ userEmail: "boss@example.com", userRole: "admin" }, appWith(""));
    expect(res.status).toBe(403);
    expect(res.body).toEqual(adminRequired);
  });

  it("an admin email that is not covered by the signature is refused before the admin check", async () => {
    const signedAsOther = userContextHeaders(HMAC_SECRET, {
      userId: "usr_x",
      userEmail: "other@example.com",
      userRole: "user",
    });
    const res = await request(app)
      .get("/api/admin/users")
      .set({
        ...headersFor("internal"),
        ...signedAsOther,
        "x-user-email": "boss@example.com",
      });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("INVALID_SIGNATURE");
  });

  it("isAdminContext needs both the role and the email", () => {
    const admins = ["boss@example.com"];
    const context = { userId: "usr_x", userEmail: "Boss@Example.com", userRole: "admin" };
    expect(isAdminContext(admins, context)).toBe(true);
    expect(isAdminContext(admins, { ...context, userRole: "user" })).toBe(false);
    expect(isAdminContext(admins, { ...context, userEmail: "other@example.com" })).toBe(false);
    expect(isAdminContext([], context)).toBe(false);
  });

  it("isAdminEmail", () => {
    expect(isAdminEmail(["A@b.c"], "a@B.C")).toBe(true);
    expect(isAdminEmail(["a@b.c"], " a@b.c ")).toBe(true);
    expect(isAdminEmail(["a@b.c"], "a@b.cc")).toBe(false);
    expect(isAdminEmail([""], "")).toBe(false);
    expect(isAdminEmail([], "a@b.c")).toBe(false);
  });
});
