import { userContextHeaders } from "@svc/common";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { HMAC_SECRET, headersFor, INTERNAL_API_KEY, testApp } from "../testing";

// `requireInternalKey` (and `requireAuth`) through the routes that use it.
function appWith(env: Record<string, string | undefined>) {
  return testApp({ env: { ADMIN_EMAILS: "admin@example.com", ...env } });
}
const app = appWith({});
// A valid admin context, so that only the internal key decides.
const context = userContextHeaders(HMAC_SECRET, {
  userId: "usr_admin",
  userEmail: "admin@example.com",
  userRole: "admin",
});

const routes = [
  { method: "get", path: "/api/admin/users" },
  { method: "get", path: "/api/admin/agents" },
  { method: "post", path: "/api/ai/chat" },
] as const;

function call(target: (typeof routes)[number], headers: Record<string, string>, on = app) {
  const req = target.method === "get" ? request(on).get(target.path) : request(on).post(target.path);
  return req
    .set({ ...context, ...headers })
    .send(target.method === "post" ? { model: "m", messages: [] } : undefined);
}

describe.each(routes)("internal API key on $method $path", (target) => {
  it("401 without an Authorization header or without the Bearer prefix", async () => {
    const headerSets: Array<Record<string, string>> = [
      {},
      { authorization: INTERNAL_API_KEY },
      { authorization: `Basic ${INTERNAL_API_KEY}` },
      { authorization: "Bearer " },
    ];
    for (const headers of headerSets) {
      const res = await call(target, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: "unauthorized",
        message: "Authorization: Bearer <internal API key> required",
      });
    }
  });

  it("403 when the key does not match", async () => {
    for (const key of ["wrong", `${INTERNAL_API_KEY}x`, INTERNAL_API_KEY.slice(0, -1), HMAC_SECRET]) {
      const res = await call(target, { authorization: `Bearer ${key}` });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "forbidden", message: "invalid internal API key" });
    }
  });

  it("500 when INTERNAL_API_KEY is unset", async () => {
    const res = await call(target, headersFor("internal"), appWith({ INTERNAL_API_KEY: undefined }));
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "internal_key_unset", message: "INTERNAL_API_KEY is not configured" });
  });

  it("the key is checked before the user context", async () => {
    const res = await request(app)[target.method](target.path).set("x-user-signature", "garbage");
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("unauthorized");
    const passed = await call(target, { ...headersFor("internal"), "x-user-signature": "0" });
    expect(passed.status).toBe(401);
    expect(passed.body.error).toBe("INVALID_SIGNATURE");
  });
});
