/**
 * The per-account sign-in limit (issue 24, item 9): failed password sign-ins of one email, from any number
 * of addresses, are limited to 10 per 15 minutes and answered like the per-IP limit (429 with its time).
 */
import { describe, expect, it } from "vitest";
import { GET as getCsrf } from "@/app/api/auth/csrf/route";
import { POST as login } from "@/app/api/auth/login/route";
import { POST as register } from "@/app/api/register/route";
import { CookieJar, call, useWebTestContext } from "@/lib/infra/testing";
import { ACCOUNT_LOGIN_LIMIT } from "./login";

const { clock } = useWebTestContext({ DATA_DIR: `/tmp/svc-login-limits-test-${process.pid}` });

let ipCounter = 0;
/** Every attempt from another address: the per-IP limit never applies here. */
const freshIp = () => `198.51.100.${++ipCounter}`;

async function logIn(email: string, password: string): Promise<Response> {
  const jar = new CookieJar();
  const { header } = await (await call(getCsrf, { path: "/api/auth/csrf", jar })).json();
  return call(login, {
    method: "POST",
    path: "/api/auth/login",
    json: { email, password },
    jar,
    ip: freshIp(),
    headers: { "x-csrf-token": header },
  });
}

async function account(email: string): Promise<void> {
  const res = await call(register, {
    method: "POST",
    path: "/api/register",
    json: { email, password: "password-1" },
    ip: `203.0.113.${++ipCounter}`,
  });
  expect(res.status).toBe(201);
}

describe("failed sign-ins per account", () => {
  it("the 11th attempt in 15 minutes gets 429 with its time, from any address and even with the right password", async () => {
    expect(ACCOUNT_LOGIN_LIMIT).toEqual({ points: 10, windowMs: 15 * 60 * 1000 });
    await account("target@example.com");
    await account("bystander@example.com");
    for (let i = 0; i < 10; i++) {
      expect((await logIn(i % 2 ? "TARGET@example.com" : "target@example.com", `guess-${i}`)).status).toBe(
        401,
      );
    }
    const limited = await logIn("target@example.com", "password-1");
    expect(limited.status).toBe(429);
    const body = await limited.json();
    expect(body).toEqual({
      error: "too many failed sign-ins for this account; try again later",
      code: "rate_limited",
      retryAfterSeconds: expect.any(Number),
    });
    expect(body.retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect(body.retryAfterSeconds).toBeLessThanOrEqual(15 * 60);
    expect(limited.headers.get("retry-after")).toBe(String(body.retryAfterSeconds));
    // Another account is not affected.
    expect((await logIn("bystander@example.com", "password-1")).status).toBe(200);
    // When the window ends, the right password works again.
    clock.advance(15 * 60 * 1000);
    expect((await logIn("target@example.com", "password-1")).status).toBe(200);
  }, 60_000);

  it("counts failures only: a successful sign-in is taken back", async () => {
    await account("mixed@example.com");
    for (let i = 0; i < 9; i++) expect((await logIn("mixed@example.com", `guess-${i}`)).status).toBe(401);
    expect((await logIn("mixed@example.com", "password-1")).status).toBe(200);
    expect((await logIn("mixed@example.com", "guess-9")).status).toBe(401);
    expect((await logIn("mixed@example.com", "password-1")).status).toBe(429);
  }, 60_000);

  it("an email no account has is limited alike (the answers do not tell which emails exist)", async () => {
    for (let i = 0; i < 10; i++) expect((await logIn("ghost@example.com", `guess-${i}`)).status).toBe(401);
    expect((await logIn("ghost@example.com", "guess-10")).status).toBe(429);
  }, 60_000);

  it("attempts at once cannot pass the limit together", async () => {
    await account("burst@example.com");
    const statuses = await Promise.all(
      Array.from({ length: 14 }, (_, i) => logIn("burst@example.com", `guess-${i}`).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(4);
  }, 60_000);
});
