import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { type RunningServer, startRunningServer } from "../../../common/testing/running-servers";

export const CHROMIUM = "/usr/bin/chromium";
/** A desktop Chrome user agent: the sign-up bot check refuses HeadlessChrome, as it should. */
export const DESKTOP_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export type WebServer = RunningServer;

/**
 * Builds the web app if needed and starts web/server.ts on a free port against `env.DATABASE_URL`, at
 * `http://localhost:<port>` (its PUBLIC_URL too: passkeys need a domain): the one way to start the web,
 * `startRunningServer` of the contract tests.
 */
export function startWebServer(env: Record<string, string>): Promise<WebServer> {
  return startRunningServer("web", env, { host: "localhost" });
}

/** Headless Debian Chromium (CI installs it: `apt-get install -y chromium`). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** A browser context with a platform (CTAP2, internal, resident keys, user verification) authenticator. */
export async function contextWithAuthenticator(browser: Browser, baseURL: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, userAgent: DESKTOP_UA });
  return context;
}

export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: import("playwright-core").Page,
): Promise<string> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}
