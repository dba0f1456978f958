/**
 * The web's operational endpoints as the running server answers them: /metrics (every route's answers
 * counted by method, route template — never the ids — and status, /api/health included; the scrape
 * token) and /api/health.
 */
import { metricValue } from "@svc/common/testing";
import { describe, expect, it } from "vitest";
import { useRunningServers } from "../../../../common/testing/running-servers";
import { signedInUser, useRunningWebContext } from "../testing";

const TOKEN = "web-scrape-token";
useRunningWebContext();
const servers = useRunningServers({ web: { METRICS_TOKEN: TOKEN } });

const get = (path: string, init: RequestInit = {}) => fetch(`${servers.web.url}${path}`, init);

async function scrape(): Promise<string> {
  const res = await get("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** How much a series moved between two scrapes. */
const movedBetween =
  (before: string, after: string) =>
  (labels: Record<string, string>, name = "http_requests_total") =>
    metricValue(after, name, labels) - metricValue(before, name, labels);

describe("GET /metrics on the running web", () => {
  it("counts GET /api/health like every route", async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) expect((await get("/api/health")).status).toBe(200);
    const moved = movedBetween(before, await scrape());
    expect(moved({ method: "GET", route: "/api/health", status: "200" })).toBe(3);
    expect(moved({ route: "/api/health" }, "http_request_duration_seconds_count")).toBe(3);
  });

  it("counts route answers by method, route template (never the ids) and status", async () => {
    const before = await scrape();
    expect(before).toContain("# TYPE process_cpu_user_seconds_total counter");
    const jobId = "job_1763900000000_abcdefghij";
    expect((await get(`/api/jobs/${jobId}`)).status).toBe(401);
    expect((await get(`/api/jobs/${jobId}`)).status).toBe(401);
    const { jar } = await signedInUser();
    const cookie = jar.header();
    expect((await get("/api/keys", { headers: { cookie } })).status).toBe(200);
    expect((await get("/api/keys/key_nothere0000000000001", { headers: { cookie } })).status).toBe(404);
    const crossSite = await get("/api/keys/key_nothere0000000000002", {
      method: "DELETE",
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    expect((await get("/api/runtime/state")).status).toBe(401);
    const after = await scrape();
    const moved = movedBetween(before, after);
    expect(moved({ method: "GET", route: "/api/jobs/[jobId]", status: "401" })).toBe(2);
    expect(moved({ route: "/api/jobs/[jobId]", status: "401" }, "http_request_duration_seconds_count")).toBe(
      2,
    );
    expect(moved({ method: "GET", route: "/api/keys", status: "200" })).toBe(1);
    expect(moved({ method: "GET", route: "/api/keys/[id]", status: "404" })).toBe(1);
    expect(moved({ method: "DELETE", route: "/api/keys/[id]", status: "403" })).toBe(1);
    expect(moved({ method: "GET", route: "/api/runtime/state", status: "401" })).toBe(1);
    expect(moved({ method: "GET", route: "/metrics", status: "200" })).toBe(1);
    expect(after).not.toContain(jobId);
    expect(after).not.toContain("key_nothere");
  });

  it("with METRICS_TOKEN: 401 without the Bearer token or with another, 200 with it", async () => {
    const none = await get("/metrics");
    expect(none.status).toBe(401);
    expect(await none.text()).not.toContain("http_requests_total");
    const wrong = await get("/metrics", { headers: { authorization: "Bearer web-scrape" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain("http_requests_total");
    const text = await scrape();
    expect(
      metricValue(text, "http_requests_total", { route: "/metrics", status: "401" }),
    ).toBeGreaterThanOrEqual(2);
  });
});

describe("GET /api/health on the running web", () => {
  it("always answers 200 with status ok, never cached", async () => {
    const res = await get("/api/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body.status).toBe("ok");
    expect(["healthy", "degraded", "unhealthy"]).toContain(body.health);
  });
});
