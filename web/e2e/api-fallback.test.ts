import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebServer, type WebServer } from "./testing/browser";

let server: WebServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-e2e-"));
  server = await startWebServer({
    DATABASE_URL: process.env.DATABASE_URL as string,
    SESSION_SECRET: "e2e-session-secret-0123456789abcdef",
    DATA_DIR: dataDir,
  });
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the web API's answers where Next.js has none of its own shape (real server)", () => {
  it("an unknown /api path answers JSON 404, for any method and depth", async () => {
    for (const [method, path] of [
      ["GET", "/api/no-such-thing"],
      ["POST", "/api/no/such/thing?x=1"],
      ["GET", "/api/keys/key_1/extra"],
      ["DELETE", "/api"],
    ]) {
      const res = await fetch(`${server.url}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: "not_found", code: "not_found" });
    }
  });

  it("a method a route does not export answers 405 with Allow listing the ones it does", async () => {
    const post = await fetch(`${server.url}/api/health`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(post.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await post.json()).toEqual({ error: "method not allowed", code: "method_not_allowed" });

    const put = await fetch(`${server.url}/api/keys/key_1`, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("DELETE, GET, HEAD, OPTIONS");
    expect(await put.json()).toEqual({ error: "method not allowed", code: "method_not_allowed" });
  });

  it("an /api path that is not valid percent-encoding answers JSON 400, not Next's HTML error page", async () => {
    for (const path of ["/api/keys/%E0", "/api/nope%zz", "/api/files%"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        error: "the path is not valid percent-encoding",
        code: "invalid_request",
      });
    }
  });

  it("existing routes and pages answer as before", async () => {
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).status).toBe("ok");
    const page = await fetch(`${server.url}/no-such-page`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  });
});
