import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricValue } from "../../testing/metrics";
import { metricsHandler, metricsResponse, observeHttpRequest } from "./index";
import { counter, gauge, metricsRegistry } from "./registry";

describe("the metrics registry", () => {
  it("is one registry per process, kept on globalThis", () => {
    const key = Symbol.for("svc.metrics.registry");
    expect(metricsRegistry()).toBe((globalThis as Record<symbol, unknown>)[key]);
    expect(metricsRegistry()).toBe(metricsRegistry());
  });

  it("creates a metric once: a second getter of the same name gets the same metric", () => {
    const first = counter({ name: "test_idempotent_total", help: "a test counter", labelNames: ["kind"] });
    const second = counter({ name: "test_idempotent_total", help: "a test counter", labelNames: ["kind"] });
    expect(second).toBe(first);
    expect(gauge({ name: "test_idempotent_gauge", help: "a test gauge" })).toBe(
      gauge({ name: "test_idempotent_gauge", help: "a test gauge" }),
    );
  });

  it("serves the default process metrics and counters in the Prometheus text format", async () => {
    counter({ name: "test_scraped_total", help: "a test counter", labelNames: ["kind"] }).inc(
      { kind: "a" },
      3,
    );
    const response = await metricsResponse(new Request("http://x/metrics"), {});
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE nodejs_heap_size_used_bytes gauge");
    expect(metricValue(text, "test_scraped_total", { kind: "a" })).toBe(3);
  });
});

describe("GET /metrics with METRICS_TOKEN", () => {
  let server: Server;
  let base: string;
  let refreshed = 0;
  beforeAll(async () => {
    const handler = metricsHandler({
      token: "scrape-secret",
      refresh: async () => {
        refreshed += 1;
      },
    });
    server = createServer((req, res) => {
      observeHttpRequest(req, res, () => "/metrics");
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers 401 without the token, or with a wrong one, and refreshes nothing", async () => {
    const none = await fetch(`${base}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    const wrong = await fetch(`${base}/metrics`, { headers: { authorization: "Bearer scrape-secreT" } });
    expect(wrong.status).toBe(401);
    const basic = await fetch(`${base}/metrics`, { headers: { authorization: "Basic scrape-secret" } });
    expect(basic.status).toBe(401);
    expect(refreshed).toBe(0);
  });

  it("answers 200 with the token, after refreshing, and counts the scrapes by status", async () => {
    const auth = { authorization: "Bearer scrape-secret" };
    const before = await (await fetch(`${base}/metrics`, { headers: auth })).text();
    await fetch(`${base}/metrics`);
    const response = await fetch(`${base}/metrics`, { headers: auth });
    expect(response.status).toBe(200);
    const after = await response.text();
    const series = (status: string) => ({ method: "GET", route: "/metrics", status });
    expect(
      metricValue(after, "http_requests_total", series("200")) -
        metricValue(before, "http_requests_total", series("200")),
    ).toBe(1);
    expect(
      metricValue(after, "http_requests_total", series("401")) -
        metricValue(before, "http_requests_total", series("401")),
    ).toBe(1);
    expect(
      metricValue(after, "http_request_duration_seconds_count", series("401")) -
        metricValue(before, "http_request_duration_seconds_count", series("401")),
    ).toBe(1);
    expect(refreshed).toBe(2);
  });
});
