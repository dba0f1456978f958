/**
 * Every per-IP limit of the web counts an IPv6 client by its /64 (issue 24, item 9): addresses rotated
 * within one /64 share one window, through each route that has such a limit; another /64 has its own.
 */
import { describe, expect, it } from "vitest";
import { POST as LOGIN } from "@/app/api/auth/login/route";
import { POST as CHAT } from "@/app/api/gateway/chat/route";
import { POST as PARTNER } from "@/app/api/partner/route";
import { POST as PASSKEY_OPTIONS } from "@/app/api/passkey/auth/options/route";
import { POST as REGISTER } from "@/app/api/register/route";
import { LOGIN_LIMIT } from "../../accounts/login";
import { SIGNUP_LIMIT } from "../../accounts/service";
import { PASSKEY_AUTH_OPTIONS_LIMIT } from "../../passkeys/service";
import { call, signedInUser, useWebTestContext } from "../testing";

useWebTestContext({ CHAT_RATE_LIMIT_PER_MINUTE: "3", PARTNER_RATE_LIMIT_PER_HOUR: "3" });

/** The `n`th address of the /64 `prefix` (`2001:db8:<x>:<y>`). */
const inside = (prefix: string, n: number) => `${prefix}:${(n + 1).toString(16)}:0:0:${n.toString(16)}`;

/** Statuses of `limit + 1` requests from different addresses of one /64, then one from another /64. */
async function rotate(
  limit: number,
  send: (ip: string, n: number) => Promise<Response>,
): Promise<{ inside: number[]; outside: number }> {
  const statuses: number[] = [];
  for (let n = 0; n <= limit; n++) statuses.push((await send(inside("2001:db8:aa:1", n), n)).status);
  const outside = (await send(inside("2001:db8:aa:2", 0), limit + 1)).status;
  return { inside: statuses, outside };
}

describe("per-IP limits key IPv6 clients by their /64", () => {
  it("sign-in", async () => {
    // No CSRF token: each attempt is counted, then refused with 403.
    const result = await rotate(LOGIN_LIMIT.points, (ip) =>
      call(LOGIN, {
        method: "POST",
        path: "/api/auth/login",
        json: { email: "x@example.com", password: "p" },
        ip,
      }),
    );
    expect(result.inside).toEqual([...Array(LOGIN_LIMIT.points).fill(403), 429]);
    expect(result.outside).toBe(403);
  });

  it("sign-up", async () => {
    const result = await rotate(SIGNUP_LIMIT.points, (ip, n) =>
      call(REGISTER, {
        method: "POST",
        path: "/api/register",
        json: { email: `v6-${n}@example.com`, password: "password-1" },
        ip,
      }),
    );
    expect(result.inside).toEqual([...Array(SIGNUP_LIMIT.points).fill(201), 429]);
    expect(result.outside).toBe(201);
  });

  it("passkey sign-in options", async () => {
    const result = await rotate(PASSKEY_AUTH_OPTIONS_LIMIT.points, (ip) =>
      call(PASSKEY_OPTIONS, {
        method: "POST",
        path: "/api/passkey/auth/options",
        json: { identifier: "nobody@example.com" },
        ip,
      }),
    );
    expect(result.inside).toEqual([...Array(PASSKEY_AUTH_OPTIONS_LIMIT.points).fill(404), 429]);
    expect(result.outside).toBe(404);
  });

  it("gateway chat", async () => {
    const { jar } = await signedInUser();
    const result = await rotate(3, (ip) =>
      call(CHAT, { method: "POST", path: "/api/gateway/chat", json: { message: "hi" }, jar, ip }),
    );
    // No agent deployed: 404 after the limit let the request through.
    expect(result.inside).toEqual([404, 404, 404, 429]);
    expect(result.outside).toBe(404);
  });

  it("partner inquiries", async () => {
    const result = await rotate(3, (ip) =>
      call(PARTNER, {
        method: "POST",
        path: "/api/partner",
        json: { name: "Ada", email: "ada@example.com", message: "Hello" },
        ip,
      }),
    );
    expect(result.inside).toEqual([200, 200, 200, 429]);
    expect(result.outside).toBe(200);
  });
});
