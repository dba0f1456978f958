/**
 * Tests only: the accounts' API through the running web (`useRunningServers`), as a browser sends it, and
 * the mail the server wrote to `<DATA_DIR>/mail` (no SMTP_URL).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { expect } from "vitest";
import { BROWSER_UA, CookieJar, webContext } from "../infra/testing";
import { createSession, SESSION_COOKIE } from "../sessions/service";
import { createUser } from "./users";

export interface MailFile {
  file: string;
  to: string;
  subject: string;
  text: string;
}

/** Every mail the server wrote so far, oldest first. */
export async function readMails(dataDir: string): Promise<MailFile[]> {
  const dir = join(dataDir, "mail");
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith(".eml")).sort();
  const mails: MailFile[] = [];
  for (const file of names) {
    const raw = await readFile(join(dir, file), "utf8");
    const split = raw.indexOf("\r\n\r\n");
    const head = raw.slice(0, split);
    const header = (name: string) => new RegExp(`^${name}: (.*)$`, "mi").exec(head)?.[1]?.trim() ?? "";
    mails.push({ file, to: header("To"), subject: header("Subject"), text: raw.slice(split + 4) });
  }
  return mails;
}

/** The mails to `to` (whose subject contains `subject`), oldest first. */
export async function mailsTo(dataDir: string, to: string, subject = ""): Promise<MailFile[]> {
  return (await readMails(dataDir)).filter((m) => m.to === to && m.subject.includes(subject));
}

/** Waits for the `count`-th mail to `to` with `subject` in its subject, and answers it. */
export async function waitForMail(
  dataDir: string,
  to: string,
  subject: string,
  count = 1,
): Promise<MailFile> {
  await expect
    .poll(async () => (await mailsTo(dataDir, to, subject)).length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(count);
  return (await mailsTo(dataDir, to, subject))[count - 1];
}

/** The first link of a mail whose path starts with `path`, as a path and query on the web. */
export function linkIn(mail: MailFile, path: string): string {
  const match = new RegExp(`https?://[^/\\s]+(${path.replace(/[?]/g, "\\?")}[^\\s]*)`).exec(mail.text);
  if (!match) throw new Error(`no ${path} link in the mail "${mail.subject}":\n${mail.text}`);
  return match[1];
}

/** A browser-like client of the running web: its cookies, its address (with TRUST_PROXY), and fetch. */
export class WebClient {
  readonly jar = new CookieJar();

  constructor(
    private readonly baseUrl: () => string,
    readonly ip: string,
  ) {}

  async fetch(
    path: string,
    init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
  ) {
    const headers: Record<string, string> = {
      "user-agent": BROWSER_UA,
      "x-forwarded-for": this.ip,
      ...(init.json === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    };
    const cookie = this.jar.header();
    if (cookie) headers.cookie = cookie;
    const res = await fetch(`${this.baseUrl()}${path}`, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers,
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
      redirect: "manual",
    });
    this.jar.store(res);
    return res;
  }

  /** The signed-in user as `GET /api/auth/session` answers (null when signed out). */
  async sessionUser(): Promise<{ id: string; email: string; name: string } | null> {
    return (await (await this.fetch("/api/auth/session")).json()).user;
  }

  /** Signs in with a password through the real CSRF and login routes; the login's status. */
  async signIn(email: string, password: string): Promise<number> {
    const { header } = await (await this.fetch("/api/auth/csrf")).json();
    const res = await this.fetch("/api/auth/login", {
      json: { email, password },
      headers: { "x-csrf-token": header },
    });
    return res.status;
  }
}

let ipCounter = 0;
/** A fresh client address (TEST-NET-2), so per-address windows do not leak between tests. */
export const freshIp = () => `198.51.100.${++ipCounter}`;

/**
 * An account with a password (bcrypt at a test cost; the server compares any cost), confirmed unless told,
 * made in this file's database, and a browser signed in to it.
 */
export async function accountWithPassword(
  baseUrl: () => string,
  password: string,
  { email = `user-${Math.random().toString(36).slice(2, 10)}@example.com`, verified = true } = {},
) {
  const ctx = webContext();
  const user = await createUser(ctx, {
    email,
    name: email.split("@")[0],
    passwordHash: await bcrypt.hash(password, 4),
    emailVerifiedAt: verified ? ctx.clock.now() : null,
  });
  const browser = await signedInBrowser(baseUrl, user.id);
  return { user, browser };
}

/** Another browser with a fresh session of the account. */
export async function signedInBrowser(baseUrl: () => string, userId: string): Promise<WebClient> {
  const browser = new WebClient(baseUrl, freshIp());
  browser.jar.set(SESSION_COOKIE, (await createSession(webContext(), userId)).token);
  return browser;
}
