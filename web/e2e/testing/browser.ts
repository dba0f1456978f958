import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { buildWebIfNeeded } from "../../../scripts/launcher/build";

const root = fileURLToPath(new URL("../../..", import.meta.url));
export const CHROMIUM = "/usr/bin/chromium";
/** A desktop Chrome user agent: the sign-up bot check refuses HeadlessChrome, as it should. */
export const DESKTOP_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

export interface WebServer {
  url: string;
  /** The server process (benchmarks read its memory). */
  pid: number;
  stop(): Promise<void>;
  output(): string;
}

/**
 * Builds the web app if needed and starts web/server.ts on a free port against `env.DATABASE_URL`. The port
 * is ours once the child says it listens on it (a port found free can be taken by another process before the
 * child binds it: the child then exits saying so and another port is tried), and the child is ready once
 * it answers its health check.
 */
export async function startWebServer(env: Record<string, string>): Promise<WebServer> {
  await buildWebIfNeeded(root, () => undefined);
  for (let attempt = 1; ; attempt++) {
    const started = await spawnWebServer(env);
    if (started !== "port taken") return started;
    if (attempt === 3) throw new Error("web server: three free ports were taken before it could bind them");
  }
}

async function spawnWebServer(env: Record<string, string>): Promise<WebServer | "port taken"> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: `${root}web`,
    env: {
      ...process.env,
      NODE_ENV: "production",
      // Production mode wants a user-context key of its own (tests that talk to a backend pass theirs).
      HMAC_SECRET: "e2e-hmac-secret-0123456789abcdef",
      WEB_PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: url,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const listening = `web listening on http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (out.includes(`port ${port} on 127.0.0.1 is already in use`)) return "port taken";
      throw new Error(`web server exited: ${out}`);
    }
    const ok =
      out.includes(listening) &&
      (await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (r) => r.ok,
        () => false,
      ));
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`web server did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid as number,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
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
