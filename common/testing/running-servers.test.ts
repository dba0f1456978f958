/**
 * The running-servers helper itself: each real server starts on its own loopback port against this file's
 * database, answers a real client, and the web reaches the backend it was started with.
 */
import { describe, expect, it } from "vitest";
import { RUNNING_INTERNAL_API_KEY, startRunningServer, useRunningServers } from "./running-servers";

/** The backend's image, unlike the web's default: an answer carrying it came from the backend. */
const BACKEND_IMAGE = "ghcr.io/openclaw/openclaw:2026.3.1";
const servers = useRunningServers({ backend: { RUNTIME_IMAGE: BACKEND_IMAGE }, web: {}, summarizer: {} });

describe("useRunningServers", () => {
  it("starts the backend, the web and the summarizer, each answering its health check on loopback", async () => {
    const urls = [servers.backend.url, servers.web.url, servers.summarizer.url];
    for (const url of urls) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new Set(urls).size).toBe(3);

    const backend = await fetch(`${servers.backend.url}/health`);
    expect(backend.status).toBe(200);
    expect(await backend.json()).toMatchObject({ status: "ok" });

    const web = await fetch(`${servers.web.url}/api/health`);
    expect(web.status).toBe(200);
    expect(await web.json()).toMatchObject({ status: "ok" });

    const summarizer = await fetch(`${servers.summarizer.url}/health`);
    expect(summarizer.status).toBe(200);
    expect(await summarizer.json()).toMatchObject({ status: "ok", service: expect.any(String) });
  });

  it("the servers are the real ones: the web's security headers, the backend's JSON 404", async () => {
    const web = await fetch(`${servers.web.url}/api/health`);
    expect(web.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(web.headers.get("x-frame-options")).toBe("DENY");

    const missing = await fetch(`${servers.backend.url}/api/no-such-route`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("the web reaches the backend it was started with", async () => {
    // The web's /api/runtime-version asks the backend's (internal key); it falls back to its own
    // RUNTIME_IMAGE only when the backend cannot be reached.
    const direct = await fetch(`${servers.backend.url}/api/runtime/version`, {
      headers: { authorization: `Bearer ${RUNNING_INTERNAL_API_KEY}` },
    });
    expect(direct.status).toBe(200);
    const backendVersion = await direct.json();
    expect(backendVersion.defaultImage).toBe(BACKEND_IMAGE);
    const viaWeb = await fetch(`${servers.web.url}/api/runtime-version`);
    expect(viaWeb.status).toBe(200);
    expect(await viaWeb.json()).toMatchObject({ ...backendVersion, fallback: false });
  });

  it("a stopped server no longer answers", async () => {
    const extra = await startRunningServer("summarizer");
    expect((await fetch(`${extra.url}/health`)).status).toBe(200);
    await extra.stop();
    await expect(fetch(`${extra.url}/health`)).rejects.toThrow();
    expect(extra.output()).not.toContain("Error");
  });
});
