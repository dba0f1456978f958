import { createLogger } from "@svc/common";
import { connectDatabase } from "@svc/db";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../app";
import { loadBackendConfig } from "../config";

const logger = createLogger("backend-test", "silent");
const config = loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL });
const database = connectDatabase(config.DATABASE_URL);
afterAll(() => database.close());

describe("GET /health", () => {
  it("reports ok with the database reachable", async () => {
    const res = await request(createApp({ config, database, logger })).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ok",
      service: "backend",
      version: "0.1.0",
      database: "ok",
      uptimeSeconds: expect.any(Number),
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
  });

  it("answers 503 when the database is unreachable", async () => {
    const dead = connectDatabase("postgres://nobody:x@127.0.0.1:1/none");
    try {
      const res = await request(createApp({ config, database: dead, logger })).get("/health");
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "unhealthy", database: "unreachable" });
    } finally {
      await dead.close();
    }
  });

  it("unknown routes are JSON 404 and bad JSON is 400", async () => {
    const app = createApp({ config, database, logger });
    const missing = await request(app).get("/api/nothing-here");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "not_found", message: "no route for GET /api/nothing-here" });
    const bad = await request(app)
      .post("/api/nothing-here")
      .set("content-type", "application/json")
      .send("{oops");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_json", message: "request body is not valid JSON" });
  });
});

describe("backend config", () => {
  it("requires DATABASE_URL and a numeric port", () => {
    expect(() => loadBackendConfig({})).toThrow(/DATABASE_URL/);
    expect(() => loadBackendConfig({ DATABASE_URL: "postgres://a@b/c", BACKEND_PORT: "x" })).toThrow(
      /BACKEND_PORT/,
    );
  });
});
