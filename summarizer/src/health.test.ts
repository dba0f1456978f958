import { createLogger } from "@svc/common";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createSummarizerApp } from "./app";
import { loadSummarizerConfig } from "./config";

const summarizer = createSummarizerApp({
  config: loadSummarizerConfig({ SUMMARIZER_PAY_TO: "0x1111111111111111111111111111111111111111" }),
  logger: createLogger("summarizer-test", "silent"),
});
afterAll(() => summarizer.close());

describe("summarizer metadata and health", () => {
  it("GET /health answers {status, service, version}", async () => {
    const res = await request(summarizer.app).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", service: "web-summarizer", version: "1.0.0" });
  });

  it("GET / describes the service and its payment settings from config", async () => {
    const res = await request(summarizer.app).get("/");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      service: "web-summarizer",
      description: expect.any(String),
      endpoints: { "POST /api/summarize": expect.any(String), "POST /api/extract": expect.any(String) },
      payment: {
        network: "base",
        currency: "USDC",
        payTo: "0x1111111111111111111111111111111111111111",
        note: expect.stringContaining("gateway"),
      },
    });
  });

  it("unknown routes are 404 {error}", async () => {
    const res = await request(summarizer.app).get("/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "no route for GET /nope" });
  });

  it("config defaults and names a bad variable", () => {
    expect(loadSummarizerConfig({})).toMatchObject({
      SUMMARIZER_PORT: 4100,
      SUMMARIZER_MAX_BYTES: 5 * 1024 * 1024,
      SUMMARIZER_FETCH_TIMEOUT_MS: 10_000,
      OUTBOUND_ALLOW_HOSTS: [],
    });
    expect(() => loadSummarizerConfig({ SUMMARIZER_PORT: "41oo" })).toThrow(/SUMMARIZER_PORT/);
    expect(() => loadSummarizerConfig({ SUMMARIZER_MAX_BYTES: "5MB" })).toThrow(/SUMMARIZER_MAX_BYTES/);
  });
});
