import { createLogger, ManualClock } from "@svc/common";
import { connectDatabase } from "@svc/db";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { loadBackendConfig } from "../config";
import { HostingError } from "../hosting/types";
import { errorMapper } from "../http/errors";
import { headersFor, testApp, testDatabase } from "../testing";
import { type HealthRouteDeps, healthRoutes } from "./routes";
import { createProvisioningCheck, type HostingPing } from "./service";

const logger = createLogger("backend-test", "silent");
const database = testDatabase();

/** A hosting platform double: the interface `/health` needs, answering as the test sets it. */
function fakePlatform(provider: HostingPing["provider"] = "railway") {
  const platform = {
    provider,
    pings: 0,
    failure: null as Error | null,
    hang: false,
    async ping() {
      platform.pings++;
      if (platform.hang) await new Promise(() => undefined);
      if (platform.failure) throw platform.failure;
    },
  };
  return platform;
}

function healthApp(deps: Partial<HealthRouteDeps> = {}) {
  const app = express();
  app.use(healthRoutes({ pool: database.pool, ...deps }));
  app.use(errorMapper(logger));
  return app;
}

describe("GET /health", () => {
  it("reports ok with the database reachable and provisioning enabled when the platform answers", async () => {
    const platform = fakePlatform("railway");
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const res = await request(healthApp({ platform, clock })).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ok",
      service: "backend",
      version: "0.1.0",
      database: "ok",
      provider: "render",
      hostingProvider: "railway",
      provisioning: { enabled: true },
      uptimeSeconds: expect.any(Number),
      timestamp: "2026-11-21T12:00:00.000Z",
    });
    expect(platform.pings).toBe(1);
  });

  it("still answers 200 with provisioning disabled and the reason when the hosting API is unreachable", async () => {
    const platform = fakePlatform("railway");
    platform.failure = new HostingError("platform", "railway API unreachable: connection refused");
    const res = await request(healthApp({ platform })).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "ok",
      provider: "render",
      hostingProvider: "railway",
      provisioning: { enabled: false, reason: "railway API unreachable: connection refused" },
    });
  });

  it("names missing configuration as the reason", async () => {
    const platform = fakePlatform("railway");
    platform.failure = new HostingError("not_configured", "HOSTING_API_KEY is not set");
    const res = await request(healthApp({ platform })).get("/health");
    expect(res.status).toBe(200);
    expect(res.body.provisioning).toEqual({
      enabled: false,
      reason: "hosting platform not configured: HOSTING_API_KEY is not set",
    });
  });

  it("takes a platform resolver and the configured provider, as app.ts holds them", async () => {
    const platform = fakePlatform("railway");
    let resolves = 0;
    const resolver = () => {
      resolves++;
      if (resolves === 1) throw new HostingError("not_configured", "HOSTING_PROJECT_ID is not set");
      return platform;
    };
    const clock = new ManualClock();
    const app = healthApp({ platform: resolver, hostingProvider: "railway", clock });
    const first = await request(app).get("/health");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      hostingProvider: "railway",
      provisioning: {
        enabled: false,
        reason: "hosting platform not configured: HOSTING_PROJECT_ID is not set",
      },
    });
    clock.advance(30_000);
    const second = await request(app).get("/health");
    expect(second.body.provisioning).toEqual({ enabled: true });
    expect(resolves).toBe(2);
    expect(platform.pings).toBe(1);
  });

  it("a ping that never answers disables provisioning after the ping timeout, and /health still answers", async () => {
    const platform = fakePlatform("docker");
    platform.hang = true;
    const res = await request(healthApp({ platform, timeoutMs: 50 })).get("/health");
    expect(res.status).toBe(200);
    expect(res.body.hostingProvider).toBe("docker");
    expect(res.body.provisioning).toEqual({
      enabled: false,
      reason: "hosting platform did not answer within 0.05 s",
    });
  });

  it("without a platform reports provisioning disabled and no hosting provider", async () => {
    const res = await request(healthApp()).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      provider: "render",
      hostingProvider: null,
      provisioning: { enabled: false, reason: "no hosting platform configured" },
    });
    // The bare-pool form of the factory behaves the same.
    const legacy = express().use(healthRoutes(database.pool));
    const old = await request(legacy).get("/health");
    expect(old.body).toMatchObject({ hostingProvider: null, provisioning: { enabled: false } });
  });

  it("answers 503 when the database is unreachable, with provisioning still reported", async () => {
    const dead = connectDatabase("postgres://nobody:x@127.0.0.1:1/none");
    try {
      const res = await request(healthApp({ pool: dead.pool, platform: fakePlatform("local") })).get(
        "/health",
      );
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        status: "unhealthy",
        database: "unreachable",
        provider: "render",
        hostingProvider: "local",
        provisioning: { enabled: true },
      });
    } finally {
      await dead.close();
    }
  });

  it("the app's /health carries the new fields", async () => {
    const res = await request(testApp()).get("/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "ok", database: "ok", provider: "render" });
    expect(typeof res.body.provisioning.enabled).toBe("boolean");
  });

  it("unknown routes are JSON 404 and bad JSON is 400", async () => {
    const app = testApp();
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

  it("a request Express cannot read is its 4xx in the one error shape, not a 500", async () => {
    const app = testApp();
    const latin = await request(app)
      .post("/api/nothing-here")
      .set("content-type", "application/json; charset=latin1")
      .send("{}");
    expect(latin.status).toBe(415);
    expect(latin.body).toEqual({ error: "unsupported_media_type", message: 'unsupported charset "LATIN1"' });
    const encoded = await request(app)
      .post("/api/nothing-here")
      .set("content-type", "application/json")
      .set("content-encoding", "foo")
      .send("{}");
    expect(encoded.status).toBe(415);
    expect(encoded.body).toEqual({
      error: "unsupported_media_type",
      message: 'unsupported content encoding "foo"',
    });
    const badParam = await request(app).get("/api/platform-jobs/%E0").set(headersFor("internal"));
    expect(badParam.status).toBe(400);
    expect(badParam.body).toEqual({
      error: "invalid_request",
      message: "a path parameter is not valid percent-encoding",
    });
  });
});

describe("provisioning check cache", () => {
  it("pings once per 30 s window and again after it", async () => {
    const platform = fakePlatform();
    const clock = new ManualClock("2026-11-21T12:00:00.000Z");
    const check = createProvisioningCheck(platform, { clock });
    expect(await check()).toEqual({ enabled: true });
    clock.advance(29_999);
    expect(await check()).toEqual({ enabled: true });
    expect(platform.pings).toBe(1);

    platform.failure = new Error("connect ECONNREFUSED 127.0.0.1:1");
    clock.advance(1);
    expect(await check()).toEqual({ enabled: false, reason: "connect ECONNREFUSED 127.0.0.1:1" });
    expect(platform.pings).toBe(2);

    // A failure is cached too, so an unreachable platform is not hammered by health polls.
    platform.failure = null;
    clock.advance(10_000);
    expect(await check()).toMatchObject({ enabled: false });
    expect(platform.pings).toBe(2);
    clock.advance(20_000);
    expect(await check()).toEqual({ enabled: true });
    expect(platform.pings).toBe(3);
  });

  it("concurrent checks share one ping", async () => {
    const platform = fakePlatform();
    const check = createProvisioningCheck(platform, { clock: new ManualClock() });
    const results = await Promise.all([check(), check(), check()]);
    expect(results).toEqual([{ enabled: true }, { enabled: true }, { enabled: true }]);
    expect(platform.pings).toBe(1);
  });

  it("cuts a long reason", async () => {
    const platform = fakePlatform();
    platform.failure = new Error("x".repeat(500));
    const status = await createProvisioningCheck(platform)();
    expect(status.enabled).toBe(false);
    expect(status.reason).toHaveLength(200);
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
