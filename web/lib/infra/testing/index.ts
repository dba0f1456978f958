/**
 * Helpers for tests of web route handlers: a test configuration on the file's own database, a manual
 * clock, requests built like a browser's, and a cookie jar that follows Set-Cookie.
 */
import { ManualClock, systemClock } from "@svc/common";
import { afterAll } from "vitest";
import { loadWebConfig, type WebConfig } from "../config";
import { closeWebContext, overrideWebContext, webContext } from "../context";
import { CLIENT_IP_HEADER } from "../http/client-ip";

export const TEST_SESSION_SECRET = "test-session-secret-0123456789abcdef";
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36";

/** Points the web context at this test file's database with a manual clock; closed after the file. */
export function useWebTestContext(env: Record<string, string> = {}): {
  clock: ManualClock;
  config: WebConfig;
} {
  const clock = new ManualClock("2026-11-21T10:00:00.000Z");
  const config = testConfig(env);
  overrideWebContext({ clock, config });
  afterAll(() => closeWebContext());
  return { clock, config };
}

/**
 * For tests of the running web (`useRunningServers`): the web context on this file's database — the
 * server's — with the system clock, the server's too, so the users and sessions `signedInUser` makes are
 * current there. Closed after the file.
 */
export function useRunningWebContext(env: Record<string, string> = {}): { config: WebConfig } {
  const config = testConfig(env);
  overrideWebContext({ clock: systemClock, config });
  afterAll(() => closeWebContext());
  return { config };
}

function testConfig(env: Record<string, string>): WebConfig {
  return loadWebConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    SESSION_SECRET: TEST_SESSION_SECRET,
    PUBLIC_URL: "http://localhost:3000",
    LOG_LEVEL: "silent",
    DATA_DIR: process.env.SVC_TEST_DATA_DIR ?? "/tmp/svc-web-test",
    ...env,
  });
}

export { webContext };

/** Cookies set by responses, sent back on the next requests, like a browser. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

export interface TestRequest {
  method?: string;
  path?: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
  jar?: CookieJar;
  ip?: string;
}

/** A Request as a browser at `ip` would send it (User-Agent, client IP header, cookies from the jar). */
export function makeRequest({
  method = "GET",
  path = "/",
  json,
  body,
  headers = {},
  jar,
  ip = "203.0.113.7",
}: TestRequest): Request {
  const h = new Headers({ "user-agent": BROWSER_UA, [CLIENT_IP_HEADER]: ip, ...headers });
  if (json !== undefined && !h.has("content-type")) h.set("content-type", "application/json");
  if (jar?.header()) h.set("cookie", jar.header());
  return new Request(new URL(path, "http://localhost:3000"), {
    method,
    headers: h,
    body: json !== undefined ? JSON.stringify(json) : body,
    redirect: "manual",
  });
}

/** Calls a route handler and stores its cookies in the jar. */
export async function call(
  handler: (request: Request, context?: never) => Promise<Response> | Response,
  request: TestRequest,
): Promise<Response> {
  const response = await handler(makeRequest(request));
  request.jar?.store(response);
  return response;
}

/**
 * A new account with a live session: the jar carries its `svc-session` cookie. Its email is confirmed
 * (what provisioning and AI use need) unless `emailVerified: false`.
 */
export async function signedInUser(
  email = `user-${Math.random().toString(36).slice(2, 10)}@example.com`,
  { emailVerified = true }: { emailVerified?: boolean } = {},
) {
  const { createUser } = await import("../../accounts/users");
  const { createSession, SESSION_COOKIE } = await import("../../sessions/service");
  const ctx = webContext();
  const user = await createUser(ctx, {
    email,
    name: email.split("@")[0],
    emailVerifiedAt: emailVerified ? ctx.clock.now() : null,
  });
  const { token } = await createSession(ctx, user.id);
  const jar = new CookieJar();
  jar.set(SESSION_COOKIE, token);
  return { user, jar, token };
}
