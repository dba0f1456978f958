/**
 * A newcomer's first hour, end to end (issue 26): `npm start` (scripts/start.ts, as `npm start` runs it) on
 * a fresh data directory, then everything as a person does it in headless Chromium — sign up, confirm by
 * the mailed link (the `.eml` folder), see the setup checklist, deploy an agent (the REAL OpenClaw runtime
 * through the local driver), find chat unavailable without an AI provider, set one and restart, sign in,
 * chat, approve a tool call, create a scoped API key and call the API with it from a program.
 *
 * The AI provider is a scripted OpenAI-compatible server on loopback. The one tool call the agent makes is a
 * stand-in `npm` of this test's own (called by its absolute path) that only leaves a marker file under this
 * test's directory. The runtime comes from RUNTIMES_DIR (CI installs it once per run), never from the
 * temporary data directory.
 */
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LauncherRun, runLauncher, stopLauncher } from "../../scripts/testing/launcher";
import { linkIn, waitForMail } from "../lib/accounts/testing";
import { expectAccessible } from "./testing/a11y";
import { DESKTOP_UA, launchChromium } from "./testing/browser";
import { hydrated } from "./testing/hydration";

const root = fileURLToPath(new URL("../..", import.meta.url));
const EMAIL = "newcomer@example.com";
const PASSWORD = "my first platform password";
const MODEL = "fake/newcomer-model";

let dataDir = "";
let markers = "";
let npm = "";
let ports: Record<string, string> = {};
let publicUrl = "";
let provider: FakeAiProvider;
let browser: Browser;
let launcher: LauncherRun | undefined;
const contexts: BrowserContext[] = [];

/** The provider's script: `RUN: <command>` asks for the exec tool; a tool's result is said back. */
function scriptProvider(): void {
  provider.setResponder((body, { lastUserText }) => {
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const last = messages.at(-1);
    if (last?.role === "tool") return { content: `tool said: ${textOf(last.content)}` };
    const run = /^RUN: (.+)$/.exec(lastUserText.trim());
    if (run) return { toolCalls: [{ name: "exec", arguments: { command: run[1] } }] };
    return { content: `echo: ${lastUserText}` };
  });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

/** `npm start` with this test's ports and data directory, plus `env`; resolves once it says it runs. */
async function start(env: Record<string, string> = {}): Promise<LauncherRun> {
  const run = runLauncher(root, {
    ...ports,
    DATA_DIR: dataDir,
    // The runtime installed once per CI run (or by `npm run runtime:install` here), never a 1.2 GB copy in
    // the temporary data directory.
    RUNTIMES_DIR: process.env.RUNTIMES_DIR ?? join(root, ".data", "runtimes"),
    ADMIN_EMAILS: EMAIL,
    ...env,
  });
  launcher = run;
  await run.waitFor("Press Ctrl-C to stop.", 300_000);
  return run;
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ baseURL: publicUrl, userAgent: DESKTOP_UA });
  contexts.push(context);
  return context.newPage();
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-newcomer-"));
  await chmod(dataDir, 0o755);
  // The agent runs as its own OS user (as root): the marker directory and the stand-in are open to it.
  const own = await mkdtemp(join(tmpdir(), "svc-newcomer-tools-"));
  await chmod(own, 0o755);
  markers = join(own, "markers");
  await mkdir(markers, { mode: 0o777 });
  await chmod(markers, 0o777);
  npm = join(own, "npm");
  await writeFile(
    npm,
    `#!/bin/sh\necho "installed $2" > "${markers}/installed-$2"\necho "added 1 package: $2"\n`,
    {
      mode: 0o755,
    },
  );
  ports = {
    WEB_PORT: String(await freePort()),
    BACKEND_PORT: String(await freePort()),
    SUMMARIZER_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
  };
  publicUrl = `http://localhost:${ports.WEB_PORT}`;
  provider = await startFakeAiProvider();
  scriptProvider();
  browser = await launchChromium();
  return async () => {
    await rm(own, { recursive: true, force: true });
  };
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  if (launcher && launcher.child.exitCode === null) await stopLauncher(launcher);
  await provider?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("a newcomer's first hour", () => {
  let page: Page;

  it("npm start on a fresh data directory says where to go", async () => {
    const run = await start();
    expect(run.stdout()).toContain(
      `Open ${publicUrl} in your browser (its Overview lists what is not set up yet).`,
    );
  }, 420_000);

  it("signs up, is told the one next step, and the mailed link confirms and signs in", async () => {
    page = await newPage();
    await page.goto("/signup");
    await hydrated(page.getByRole("button", { name: "Create account" }));
    await page.getByLabel("Email", { exact: true }).fill(EMAIL);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect
      .poll(() => page.getByTestId("signup-next-step").textContent())
      .toContain(`Account created for ${EMAIL}. Open the link we sent to that address to confirm it`);
    expect(await page.getByRole("form").count()).toBe(0);
    await expectAccessible(page);

    const mail = await waitForMail(dataDir, EMAIL, "Confirm your email");
    await page.goto(linkIn(mail, "/api/auth/verify-email?token="));
    await page.waitForURL("**/dashboard?verified=1");
    await expect.poll(() => page.getByText("Your email address is confirmed.").count()).toBe(1);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Overview");
    await expect.poll(() => page.getByText(/^Welcome, /).count()).toBe(1);
  }, 120_000);

  it("the Overview's checklist says the AI provider is missing and what to set; Chat says so up front", async () => {
    const checklist = page.getByTestId("setup-checklist");
    await expect.poll(() => checklist.count(), { timeout: 20_000 }).toBe(1);
    const state = (id: string) => page.getByTestId(`setup-${id}-state`).textContent();
    await expect.poll(() => state("ai_provider")).toBe("Not configured");
    // This machine can run agents: the local driver (as root, each agent its own OS user), the runtime installed.
    expect(await state("hosting")).toBe("Ready");
    expect(await state("agent_runtime")).toBe("Ready");
    await page
      .getByTestId("setup-ai_provider")
      .getByText(/^Variables/)
      .click();
    const ai = await page.getByTestId("setup-ai_provider").innerText();
    expect(ai).toMatch(/AI_PROVIDER_KEY \(backend\)\s+not set/);
    expect(ai).toContain("Restart the platform after the change.");
    await expectAccessible(page);

    await page.goto("/dashboard/chat");
    expect(await page.getByTestId("unavailable-ai_provider").innerText()).toContain(
      "Chat is not available on this server",
    );
    const send = page.getByRole("button", { name: "Send" });
    await hydrated(send);
    expect(await send.isDisabled()).toBe(true);
    expect(await page.getByLabel("Message", { exact: true }).isDisabled()).toBe(true);
  }, 120_000);

  it("deploys an agent under the name chosen and sees it running (the real runtime)", async () => {
    await page.goto("/dashboard/agent");
    const panel = page.getByTestId("agent-panel");
    const form = panel.getByRole("form", { name: "Deploy your agent" });
    await expect.poll(() => form.isVisible(), { timeout: 20_000 }).toBe(true);
    await hydrated(form);
    await form.getByLabel("Agent name").fill("First light");
    await form.getByRole("button", { name: "Deploy agent" }).click();
    await expect
      .poll(() => panel.getByTestId("deploy-job").textContent())
      .toMatch(/Queued|Running|Completed/);
    // Installing nothing (the runtime is there), starting OpenClaw and its first health answers.
    await expect
      .poll(() => panel.getByTestId("agent-status").textContent(), { timeout: 300_000, interval: 1_000 })
      .toBe("Running");
    expect(await panel.getByTestId("agent-name").textContent()).toContain("First light");
    await expectAccessible(page);
  }, 360_000);

  it("with the AI provider set and the platform restarted, the agent is back and the checklist says ready", async () => {
    expect(await stopLauncher(launcher as LauncherRun)).toBe(0);
    await start({ AI_PROVIDER_URL: provider.url, AI_PROVIDER_KEY: provider.apiKey, AI_DEFAULT_MODEL: MODEL });

    // A new browser: signing in with the password sets the session.
    page = await newPage();
    await page.goto("/login");
    await hydrated(page.getByRole("button", { name: "Sign in", exact: true }));
    await page.getByLabel("Email", { exact: true }).fill(EMAIL);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/dashboard");
    await expect.poll(() => page.getByText(/^Welcome back, /).count()).toBe(1);
    await expect.poll(() => page.getByTestId("setup-ai_provider-state").textContent()).toBe("Ready");
    // The agent the platform restored on its start.
    await expect
      .poll(() => page.getByTestId("overview-agent-status").textContent(), {
        timeout: 180_000,
        interval: 1_000,
      })
      .toMatch(/^running/);
  }, 480_000);

  it("chats with the agent", async () => {
    await page.goto("/dashboard/chat");
    const message = page.getByLabel("Message", { exact: true });
    await hydrated(page.getByRole("button", { name: "Send" }));
    await expect.poll(() => message.isDisabled()).toBe(false);
    await message.fill("Hello, agent.");
    await page.getByRole("button", { name: "Send" }).click();
    const turn = page.getByTestId("chat-turn").last();
    // A cold runtime's first answer takes a while on a busy machine; the chat job allows six minutes.
    await expect
      .poll(() => turn.getByTestId("chat-reply").textContent(), { timeout: 360_000, interval: 1_000 })
      .toBe("echo: Hello, agent.");
    await expectAccessible(page);
  }, 420_000);

  it("a tool call that needs a person waits on Approvals; approved, it runs and the chat has its result", async () => {
    const command = `${npm} install left-pad`;
    await page.getByLabel("Message", { exact: true }).fill(`RUN: ${command}`);
    await page.getByRole("button", { name: "Send" }).click();

    const approvals = await page.context().newPage();
    await approvals.goto("/dashboard/approvals");
    const request = approvals.getByTestId("permission-request").filter({ hasText: command });
    await expect.poll(() => request.count(), { timeout: 300_000, interval: 1_000 }).toBe(1);
    expect(await request.getByTestId("permission-input").textContent()).toBe(command);
    expect(await request.getByTestId("permission-agent").textContent()).toBe("First light");
    expect(await exists(join(markers, "installed-left-pad"))).toBe(false);
    await expectAccessible(approvals);
    await request.getByRole("button", { name: /^Approve:/ }).click();
    await expect.poll(() => request.count()).toBe(0);

    await expect
      .poll(() => page.getByTestId("chat-reply").last().textContent(), { timeout: 360_000, interval: 1_000 })
      .toContain("added 1 package: left-pad");
    expect(await exists(join(markers, "installed-left-pad"))).toBe(true);
  }, 720_000);

  it("creates a key for a script, and the script chats through the API and is refused elsewhere", async () => {
    await page.goto("/dashboard/settings");
    await hydrated(page.getByRole("button", { name: "Create key" }));
    await page.getByLabel("Key name", { exact: true }).fill("my script");
    await page.getByLabel("Chat", { exact: true }).selectOption("write");
    await page.getByLabel("Jobs", { exact: true }).selectOption("read");
    await page.getByLabel("Expires after", { exact: true }).selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.getByTestId("new-api-key").textContent()).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    const key = (await page.getByTestId("new-api-key").textContent()) as string;
    await expectAccessible(page);

    // A program: Node's fetch (undici) with the key, no cookie.
    const bearer = { authorization: `Bearer ${key}` };
    const sent = await fetch(`${publicUrl}/api/gateway/chat`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ message: "Hello from a script." }),
    });
    expect(sent.status).toBe(202);
    const { jobId, agentName } = (await sent.json()) as { jobId: string; agentName: string };
    expect(agentName).toBe("First light");
    await expect
      .poll(
        async () => {
          const res = await fetch(`${publicUrl}/api/jobs/${jobId}`, { headers: bearer });
          const { job } = (await res.json()) as {
            job: { status: string; result: { reply?: string } | null };
          };
          return job.status === "completed" ? job.result?.reply : job.status;
        },
        { timeout: 360_000, interval: 1_000 },
      )
      .toBe("echo: Hello from a script.");

    const files = await fetch(`${publicUrl}/api/files`, { headers: bearer });
    expect(files.status).toBe(403);
    expect(await files.json()).toMatchObject({ code: "insufficient_scope", scope: "files:read" });
    // Never the account: a key is not a session.
    const account = await fetch(`${publicUrl}/api/account`, { headers: bearer });
    expect(account.status).toBe(403);
    expect(await account.json()).toMatchObject({ code: "api_key_not_allowed" });
  }, 420_000);
});
