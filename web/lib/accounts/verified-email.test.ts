/**
 * A confirmed email before AI use (issue 24, item 9): the gateway chat refuses an unconfirmed account, and
 * `POST /api/auth/verify-email` mails a fresh link (the earlier ones stop working) so nobody is stuck once
 * the first link expired.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { POST as RESEND, GET as VERIFY } from "@/app/api/auth/verify-email/route";
import { POST as CHAT } from "@/app/api/gateway/chat/route";
import { POST as REGISTER } from "@/app/api/register/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { VERIFICATION_RESEND_LIMIT } from "./service";

const dataDir = `/tmp/svc-verified-email-test-${process.pid}`;
const { clock } = useWebTestContext({ DATA_DIR: dataDir });

beforeEach(async () => {
  await rm(join(dataDir, "mail"), { recursive: true, force: true });
});

/** The verification links mailed so far, oldest first. */
async function mailedLinks(): Promise<string[]> {
  const dir = join(dataDir, "mail");
  const files = (await readdir(dir).catch(() => [])).sort();
  const links: string[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), "utf8");
    const link = /http:\/\/localhost:3000(\/api\/auth\/verify-email\?token=[\w-]+)/.exec(text)?.[1];
    if (link) links.push(link);
  }
  return links;
}

const resend = (jar: Awaited<ReturnType<typeof signedInUser>>["jar"] | undefined) =>
  call(RESEND, { method: "POST", path: "/api/auth/verify-email", jar });

async function verifiedAt(userId: string): Promise<Date | null> {
  const [row] = await webContext().db.select().from(users).where(eq(users.id, userId));
  return row.emailVerifiedAt;
}

describe("AI use needs a confirmed email", () => {
  it("the gateway chat answers 403 email_not_verified to an unconfirmed account, before queueing anything", async () => {
    const { jar } = await signedInUser(undefined, { emailVerified: false });
    const res = await call(CHAT, { method: "POST", path: "/api/gateway/chat", json: { message: "hi" }, jar });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("email_not_verified");
    // A confirmed account gets past it (and, without an agent, is told so).
    const confirmed = await signedInUser();
    const ok = await call(CHAT, {
      method: "POST",
      path: "/api/gateway/chat",
      json: { message: "hi" },
      jar: confirmed.jar,
    });
    expect(ok.status).toBe(404);
  });
});

describe("POST /api/auth/verify-email: a fresh link", () => {
  it("mails a new link that confirms the email; the link from sign-up no longer works", async () => {
    const signup = await call(REGISTER, {
      method: "POST",
      path: "/api/register",
      json: { email: "late@example.com", password: "password-1" },
    });
    expect(signup.status).toBe(201);
    const { id } = await signup.json();
    const [first] = await mailedLinks();
    // The first link expired unused (24 hours).
    clock.advance(25 * 60 * 60 * 1000);
    const { createSession, SESSION_COOKIE } = await import("../sessions/service");
    const { CookieJar } = await import("../infra/testing");
    const jar = new CookieJar();
    jar.set(SESSION_COOKIE, (await createSession(webContext(), id)).token);

    const res = await resend(jar);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sent: true, email: "late@example.com" });
    const links = await mailedLinks();
    expect(links).toHaveLength(2);
    expect(links[1]).not.toBe(first);

    const old = await call(VERIFY, { path: first });
    expect(old.headers.get("location")).toBe("http://localhost:3000/login?error=VerificationFailed");
    expect(await verifiedAt(id)).toBeNull();
    const fresh = await call(VERIFY, { path: links[1], jar });
    expect(fresh.headers.get("location")).toBe("http://localhost:3000/dashboard?verified=1");
    expect(await verifiedAt(id)).not.toBeNull();
  });

  it("a link asked for earlier stops working when a newer one is sent", async () => {
    const { user, jar } = await signedInUser(undefined, { emailVerified: false });
    expect((await resend(jar)).status).toBe(200);
    clock.advance(1_000); // mail files are named by their time
    expect((await resend(jar)).status).toBe(200);
    const [older, newer] = await mailedLinks();
    expect((await call(VERIFY, { path: older })).headers.get("location")).toContain("VerificationFailed");
    expect((await call(VERIFY, { path: newer })).headers.get("location")).toContain("verified=1");
    expect(await verifiedAt(user.id)).not.toBeNull();
  });

  it("409 once confirmed; 429 past 3 an hour; 401 without a session", async () => {
    const confirmed = await signedInUser();
    const done = await resend(confirmed.jar);
    expect(done.status).toBe(409);
    expect((await done.json()).code).toBe("email_already_verified");

    expect(VERIFICATION_RESEND_LIMIT.points).toBe(3);
    const { jar } = await signedInUser(undefined, { emailVerified: false });
    for (let i = 0; i < 3; i++) expect((await resend(jar)).status).toBe(200);
    const limited = await resend(jar);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await mailedLinks()).toHaveLength(3);

    expect((await resend(undefined)).status).toBe(401);
  });
});
