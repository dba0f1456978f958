import { metricValue } from "@svc/common/testing";
import { describe, expect, it } from "vitest";
import { GET as JOB } from "@/app/api/jobs/[jobId]/route";
import { GET as KEY, DELETE as REVOKE_KEY } from "@/app/api/keys/[id]/route";
import { GET as KEYS } from "@/app/api/keys/route";
import { GET as RUNTIME_STATE } from "@/app/api/runtime/state/route";
import { GET as METRICS } from "@/app/metrics/route";
import { overrideWebContext } from "../context";
import { call, makeRequest, signedInUser, useWebTestContext } from "../testing";
import { routeTemplateOf } from "./index";

const { config } = useWebTestContext();

async function scrape(headers: Record<string, string> = {}): Promise<string> {
  const res = await call(METRICS, { path: "/metrics", headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe("GET /metrics on the web", () => {
  it("counts route answers by method, route template (never the ids) and status", async () => {
    const before = await scrape();
    expect(before).toContain("# TYPE process_cpu_user_seconds_total counter");
    const jobId = "job_1763900000000_abcdefghij";
    await JOB(makeRequest({ path: `/api/jobs/${jobId}` }), { params: Promise.resolve({ jobId }) });
    await JOB(makeRequest({ path: `/api/jobs/${jobId}` }), { params: Promise.resolve({ jobId }) });
    const { jar } = await signedInUser();
    expect((await call(KEYS, { path: "/api/keys", jar })).status).toBe(200);
    const missing = await KEY(makeRequest({ path: "/api/keys/key_nothere0000000000001", jar }), {
      params: Promise.resolve({ id: "key_nothere0000000000001" }),
    });
    expect(missing.status).toBe(404);
    const crossSite = await REVOKE_KEY(
      makeRequest({
        method: "DELETE",
        path: "/api/keys/key_nothere0000000000002",
        headers: { origin: "https://evil.example" },
        jar,
      }),
      { params: Promise.resolve({ id: "key_nothere0000000000002" }) },
    );
    expect(crossSite.status).toBe(403);
    expect((await call(RUNTIME_STATE, { path: "/api/runtime/state" })).status).toBe(401);
    const after = await scrape();
    const moved = (labels: Record<string, string>, name = "http_requests_total") =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
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

  it("with METRICS_TOKEN: 401 without the Bearer token, 200 with it", async () => {
    overrideWebContext({ config: { ...config, METRICS_TOKEN: "web-scrape-token" } });
    try {
      const none = await call(METRICS, { path: "/metrics" });
      expect(none.status).toBe(401);
      expect(await none.text()).not.toContain("http_requests_total");
      const wrong = await call(METRICS, {
        path: "/metrics",
        headers: { authorization: "Bearer web-scrape" },
      });
      expect(wrong.status).toBe(401);
      const text = await scrape({ authorization: "Bearer web-scrape-token" });
      expect(
        metricValue(text, "http_requests_total", { route: "/metrics", status: "401" }),
      ).toBeGreaterThanOrEqual(2);
    } finally {
      overrideWebContext({ config });
    }
  });
});

describe("route templates", () => {
  const template = (path: string, params?: Record<string, string | string[] | undefined>) =>
    routeTemplateOf(
      new Request(`http://localhost:3000${path}`),
      params ? { params: Promise.resolve(params) } : undefined,
    );

  it("replaces each dynamic segment's value by its name, in path order", async () => {
    expect(await template("/api/keys")).toBe("/api/keys");
    expect(await template("/api/keys/key_1", { id: "key_1" })).toBe("/api/keys/[id]");
    expect(await template("/api/agents/keys/x/keys", { agentId: "keys", file: "keys" })).toBe(
      "/api/agents/[agentId]/x/[file]",
    );
    expect(await template("/api/files/a%20b/c", { name: "a b" })).toBe("/api/files/[name]/c");
    expect(await template("/docs/assets/a/b/c.js", { path: ["a", "b", "c.js"] })).toBe(
      "/docs/assets/[...path]",
    );
    expect(await template("/docs", { path: undefined })).toBe("/docs");
  });
});
