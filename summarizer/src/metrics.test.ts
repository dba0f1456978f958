import { createLogger } from "@svc/common";
import { metricValue } from "@svc/common/testing";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createSummarizerApp } from "./app";
import { loadSummarizerConfig } from "./config";

const logger = createLogger("summarizer-test", "silent");
const open = createSummarizerApp({ config: loadSummarizerConfig({}), logger });
const guarded = createSummarizerApp({ config: loadSummarizerConfig({ METRICS_TOKEN: "scrape-me" }), logger });
afterAll(() => {
  open.close();
  guarded.close();
});

async function scrape(): Promise<string> {
  const res = await request(open.app).get("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

describe("GET /metrics on the summarizer", () => {
  it("counts requests by method, route template and status", async () => {
    const before = await scrape();
    expect(before).toContain("# TYPE process_resident_memory_bytes gauge");
    await request(open.app).get("/health").expect(200);
    await request(open.app).get("/health").expect(200);
    await request(open.app).post("/api/summarize").send({}).expect(400);
    await request(open.app).get("/no/such/page-123").expect(404);
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(moved("http_requests_total", { method: "GET", route: "/health", status: "200" })).toBe(2);
    expect(
      moved("http_request_duration_seconds_count", { method: "GET", route: "/health", status: "200" }),
    ).toBe(2);
    expect(moved("http_requests_total", { method: "POST", route: "/api/summarize", status: "400" })).toBe(1);
    expect(moved("http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    // The raw path of an unmatched request never becomes a label.
    expect(after).not.toContain("page-123");
  });

  it("with METRICS_TOKEN: 401 without the token, 200 with it", async () => {
    const none = await request(guarded.app).get("/metrics");
    expect(none.status).toBe(401);
    expect(none.text).not.toContain("http_requests_total");
    const wrong = await request(guarded.app).get("/metrics").set("authorization", "Bearer scrape-you");
    expect(wrong.status).toBe(401);
    const right = await request(guarded.app).get("/metrics").set("authorization", "Bearer scrape-me");
    expect(right.status).toBe(200);
    expect(
      metricValue(right.text, "http_requests_total", { route: "/metrics", status: "401" }),
    ).toBeGreaterThanOrEqual(2);
  });
});
