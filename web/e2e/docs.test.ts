import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "./testing/a11y";
import { launchChromium, startWebServer, type WebServer } from "./testing/browser";

let server: WebServer;
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-e2e-"));
  server = await startWebServer({
    DATABASE_URL: process.env.DATABASE_URL as string,
    SESSION_SECRET: "e2e-session-secret-0123456789abcdef",
    DATA_DIR: dataDir,
  });
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the API description in a real browser", () => {
  it("GET /api/openapi.json answers the document over HTTP", async () => {
    const res = await fetch(`${server.url}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/keys/{id}");
  });

  it("/docs renders the web's operations with every file loaded from the app's own origin", async () => {
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    const requested: string[] = [];
    const failed: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    page.on("requestfailed", (request) => failed.push(request.url()));
    const response = await page.goto("/docs");
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
    // Swagger UI fetched the document and drew one block per operation.
    await page.locator(".opblock").first().waitFor();
    expect(await page.locator(".info .title").textContent()).toContain("Agent platform web API");
    const paths = await page.locator(".opblock-summary-path").allTextContents();
    expect(paths.map((p) => p.replace(/\u200b/g, ""))).toEqual(
      expect.arrayContaining(["/api/keys/{id}", "/api/register", "/api/openapi.json"]),
    );
    expect(requested).toEqual(
      expect.arrayContaining([
        `${server.url}/docs/assets/swagger-ui-bundle.js`,
        `${server.url}/docs/assets/swagger-ui.css`,
        `${server.url}/api/openapi.json`,
      ]),
    );
    expect(requested.filter((url) => !url.startsWith(`${server.url}/`) && !url.startsWith("data:"))).toEqual(
      [],
    );
    expect(failed).toEqual([]);
    // Swagger UI's markup is the library's own (its contrast, nested controls); the page's width is ours.
    await expectAccessible(page, { exclude: ["#swagger-ui"] });
    await context.close();
  }, 60_000);
});
