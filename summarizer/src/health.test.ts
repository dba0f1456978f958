import { createLogger } from "@svc/common";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createSummarizerApp } from "./app";
import { loadSummarizerConfig } from "./config";

const app = createSummarizerApp({ logger: createLogger("summarizer-test", "silent") });

describe("summarizer health", () => {
  it("GET /health answers {status, service, version}", async () => {
    const res = await request(app).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", service: "web-summarizer", version: "1.0.0" });
  });

  it("unknown routes are 404 {error}", async () => {
    const res = await request(app).get("/nope");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "no route for GET /nope" });
  });

  it("config names a bad port", () => {
    expect(loadSummarizerConfig({}).SUMMARIZER_PORT).toBe(4100);
    expect(() => loadSummarizerConfig({ SUMMARIZER_PORT: "41oo" })).toThrow(/SUMMARIZER_PORT/);
  });
});
