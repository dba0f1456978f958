/**
 * The dashboard's e2e stack: the REAL backend in-process on loopback (its HTTP routes; no job worker, so
 * enqueued jobs stay `queued`; or, with `localAgents`, with a worker and real local agents), the built web app against it and this file's
 * database, and headless Chromium. Call `useDashboardStack()` at the top level of a test file; it starts
 * everything before the file's tests and stops it after them.
 *
 *   const stack = useDashboardStack();
 *   it("…", async () => {
 *     const { page, user } = await stack.signIn();
 *     await page.goto("/dashboard/agent");
 *   });
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { signedInUser, useWebTestContext } from "../../lib/infra/testing";
import { startTestBackend, type TestBackend } from "../../lib/runtime/testing/backend";
import { SESSION_COOKIE } from "../../lib/sessions/service";
import { type AgentBackend, startAgentBackend } from "./agent-backend";
import { DESKTOP_UA, launchChromium, startWebServer, type WebServer } from "./browser";

export const E2E_INTERNAL_API_KEY = "dashboard-internal-key-0123456789abcdef";
export const E2E_HMAC_SECRET = "dashboard-hmac-secret-0123456789abcdef";
export const E2E_SESSION_SECRET = "dashboard-session-secret-0123456789abcdef";
/** Shared by the web and the backend: seals and opens the agents' gateway tokens. */
export const E2E_DATA_ENCRYPTION_KEY = "cd".repeat(32);

export interface DashboardStackOptions {
  /** Variables of the backend (over the shared key and secret; RUNTIME_IMAGE defaults to a fixed tag). */
  backendEnv?: Record<string, string>;
  /** Variables of the web server (over DATABASE_URL, the secrets, DATA_DIR and BACKEND_URL). */
  webEnv?: Record<string, string>;
  /** No backend at all (pages that only need the web). */
  withoutBackend?: boolean;
  /**
   * Real agents: the backend with a job worker and the LOCAL hosting driver (./agent-backend.ts), so a
   * deploy is provisioned and the agent answers. Without it, jobs stay queued and agents are rows only.
   */
  localAgents?: boolean;
}

export interface SignedIn {
  user: Awaited<ReturnType<typeof signedInUser>>["user"];
  /** The session token (cookie `svc-session`), for API calls made as this user. */
  token: string;
  context: BrowserContext;
  page: Page;
}

export interface DashboardStack {
  readonly web: WebServer;
  /** The routes-only backend (undefined with `withoutBackend` or `localAgents`). */
  readonly backend: TestBackend | undefined;
  readonly browser: Browser;
  /** The web's DATA_DIR (mail files land in `<dataDir>/mail`). */
  readonly dataDir: string;
  /**
   * A new account with a live session (its email confirmed unless `emailVerified: false`), and a browser
   * context (desktop user agent, 1280×800, the session cookie set) with one page whose relative `goto`s
   * reach the web. Close the context when done.
   */
  signIn(options?: {
    email?: string;
    viewport?: { width: number; height: number };
    emailVerified?: boolean;
  }): Promise<SignedIn>;
}

export function useDashboardStack(options: DashboardStackOptions = {}): DashboardStack {
  useWebTestContext({ SESSION_SECRET: E2E_SESSION_SECRET });
  let web: WebServer | undefined;
  let backend: TestBackend | undefined;
  let agentBackend: AgentBackend | undefined;
  let browser: Browser | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-dashboard-"));
    const backendEnv = {
      INTERNAL_API_KEY: E2E_INTERNAL_API_KEY,
      HMAC_SECRET: E2E_HMAC_SECRET,
      DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY,
      RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
      ...options.backendEnv,
    };
    if (options.localAgents) agentBackend = await startAgentBackend(backendEnv);
    else if (!options.withoutBackend) backend = await startTestBackend(backendEnv);
    const backendUrl = agentBackend?.url ?? backend?.url;
    web = await startWebServer({
      DATABASE_URL: process.env.DATABASE_URL as string,
      SESSION_SECRET: E2E_SESSION_SECRET,
      DATA_DIR: dataDir,
      INTERNAL_API_KEY: E2E_INTERNAL_API_KEY,
      HMAC_SECRET: E2E_HMAC_SECRET,
      DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY,
      ...(backendUrl ? { BACKEND_URL: backendUrl } : {}),
      ...options.webEnv,
    });
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await web?.stop();
    await backend?.close();
    await agentBackend?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`the dashboard stack's ${what} is not started (use it inside a test)`);
    return value;
  };

  return {
    get web() {
      return started(web, "web server");
    },
    get backend() {
      return backend;
    },
    get browser() {
      return started(browser, "browser");
    },
    get dataDir() {
      return started(dataDir, "data directory");
    },
    async signIn({ email, viewport = { width: 1280, height: 800 }, emailVerified = true } = {}) {
      const server = started(web, "web server");
      const { user, token } = await signedInUser(email, { emailVerified });
      const context = await started(browser, "browser").newContext({
        baseURL: server.url,
        userAgent: DESKTOP_UA,
        viewport,
      });
      await context.addCookies([{ name: SESSION_COOKIE, value: token, url: server.url }]);
      const page = await context.newPage();
      return { user, token, context, page };
    },
  };
}
