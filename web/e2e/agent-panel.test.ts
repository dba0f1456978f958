/**
 * The dashboard's Agent panel in real headless Chromium, against the built web app and the REAL backend
 * (in-process, loopback; no job worker, so a deploy job stays queued).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sendJson, startFakeUpstream } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInUser, useWebTestContext, webContext } from "../lib/infra/testing";
import { startTestBackend, type TestBackend } from "../lib/runtime/testing/backend";
import { SESSION_COOKIE } from "../lib/sessions/service";
import { expectAccessible } from "./testing/a11y";
import { DESKTOP_UA, launchChromium, startWebServer, type WebServer } from "./testing/browser";

const INTERNAL_API_KEY = "panel-internal-key-0123456789abcdef";
const HMAC_SECRET = "panel-hmac-secret-0123456789abcdef";

useWebTestContext();
let backend: TestBackend;
let server: WebServer;
let browser: Browser;
let dataDir: string;

// The agent's wrapper once it is deployed: the probe's three endpoints.
const wrapper = await startFakeUpstream((req, res) => {
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/healthz") return sendJson(res, 200, { ok: true });
  if (path === "/readyz") return sendJson(res, 200, { ready: true });
  if (path === "/api/status")
    return sendJson(res, 200, { state: "running", running: true, configured: true });
  sendJson(res, 404, { ok: false });
});

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-agent-panel-"));
  backend = await startTestBackend({
    INTERNAL_API_KEY,
    HMAC_SECRET,
    RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
  });
  server = await startWebServer({
    DATABASE_URL: process.env.DATABASE_URL as string,
    SESSION_SECRET: "panel-session-secret-0123456789abcdef",
    DATA_DIR: dataDir,
    BACKEND_URL: backend.url,
    INTERNAL_API_KEY,
    HMAC_SECRET,
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await backend?.close();
  await wrapper.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("Agent panel", () => {
  it("a new user sees only the deploy action; deploying shows the job; a deployed agent shows status and controls", async () => {
    const { user, token } = await signedInUser();
    const context = await browser.newContext({ baseURL: server.url, userAgent: DESKTOP_UA });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: server.url }]);
    const page = await context.newPage();
    await page.goto("/dashboard/agent");

    const panel = page.getByTestId("agent-panel");
    await expect
      .poll(() => panel.getByRole("button", { name: "Deploy agent" }).isVisible(), { timeout: 15_000 })
      .toBe(true);
    expect(await panel.getByTestId("agent-none").textContent()).toBe("You have no running agent yet.");
    for (const name of ["Start", "Stop", "Restart", "Repair"]) {
      expect(await panel.getByRole("button", { name, exact: true }).count()).toBe(0);
    }
    expect(await panel.getByTestId("agent-status").count()).toBe(0);
    await expectAccessible(page);

    // Deploy: the job is shown with a link to it, and it is the user's queued provision job.
    await panel.getByRole("button", { name: "Deploy agent" }).click();
    await expect
      .poll(() => panel.getByTestId("deploy-job").textContent())
      .toMatch(/job_\d+_[0-9a-z]+: Queued, waiting for a worker/);
    // The link opens the job's dashboard page, not the API's JSON.
    const href = await panel.getByTestId("deploy-job").getByRole("link").getAttribute("href");
    expect(href).toMatch(/^\/dashboard\/jobs\/job_\d+_[0-9a-z]+$/);
    const jobId = (href as string).split("/").pop() as string;
    const job = await (await page.request.get(`/api/jobs/${jobId}`)).json();
    expect(job.job).toMatchObject({
      userId: user.id,
      jobType: "provision_managed_runtime",
      status: "queued",
    });
    expect(await panel.getByRole("button", { name: "Deploy agent" }).isDisabled()).toBe(true);

    // Once the agent has a runtime, the panel shows its live status, the version and the controls.
    await webContext().db.update(agents).set({ url: wrapper.url }).where(eq(agents.userId, user.id));
    await page.reload();
    await expect.poll(() => panel.getByTestId("agent-status").textContent()).toBe("Running");
    await expect.poll(() => panel.getByTestId("agent-version").textContent()).toBe("2026.4.11");
    // This backend has no hosting platform: the restart fails, and the panel says why.
    await panel.getByRole("button", { name: "Restart", exact: true }).click();
    await expect.poll(() => panel.locator(".error[role=alert]").count()).toBe(1);
    expect(await panel.getByRole("button", { name: "Restart", exact: true }).isEnabled()).toBe(true);
    await context.close();
  }, 120_000);
});
