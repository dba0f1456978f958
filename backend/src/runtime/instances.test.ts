/** GET /api/runtime/instances and /api/runtime/instances/:id/stats over real drivers and loopback fakes. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Clock, createLogger, ManualClock } from "@svc/common";
import { type FakeDocker, startFakeDocker } from "@svc/common/testing";
import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDockerHostingPlatform, type DockerHostingPlatform } from "../hosting/docker";
import { createRailwayHostingPlatform } from "../hosting/railway";
import type { HostingPlatform } from "../hosting/types";
import { errorMapper, notFound } from "../http/errors";
import { headersFor, INTERNAL_API_KEY } from "../testing";
import { runtimeInstanceRoutes } from "./instances";

const auth = headersFor("internal");
let dir = "";
let fake: FakeDocker;
let docker: DockerHostingPlatform;

function appFor(
  platform: HostingPlatform,
  options: { internalApiKey: string | undefined; clock?: Clock } = { internalApiKey: INTERNAL_API_KEY },
) {
  const app = express();
  app.use(runtimeInstanceRoutes(platform, options));
  app.use(notFound);
  app.use(errorMapper(createLogger("test", "silent")));
  return app;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-instances-"));
  fake = await startFakeDocker({ socketPath: join(dir, "docker.sock") });
  docker = createDockerHostingPlatform({ dockerHost: fake.dockerHost });
  const env = (token: string) => ({ OPENCLAW_GATEWAY_TOKEN: token });
  await docker.create({
    agentId: "agt_one",
    name: "agent-one",
    image: "ghcr.io/openclaw/openclaw:2026.4.11",
    env: env("tok-one"),
  });
  await docker.create({
    agentId: "agt_two",
    name: "agent-two",
    image: "ghcr.io/openclaw/openclaw:2026.5.1",
    env: env("tok-two"),
  });
  await docker.stop("agent-two");
  fake.setStats({
    cpu_stats: { cpu_usage: { total_usage: 250 }, system_cpu_usage: 2_000, online_cpus: 2 },
    precpu_stats: { cpu_usage: { total_usage: 200 }, system_cpu_usage: 1_000 },
    memory_stats: { usage: 120_000_000, limit: 1_000_000_000, stats: { inactive_file: 20_000_000 } },
  });
});

afterAll(async () => {
  await docker.close();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

describe("internal key", () => {
  it("401 without a bearer, 403 with a wrong one, 500 while the key is unset", async () => {
    const app = appFor(docker);
    expect((await request(app).get("/api/runtime/instances")).status).toBe(401);
    const wrong = await request(app).get("/api/runtime/instances").set({ authorization: "Bearer nope" });
    expect(wrong.status).toBe(403);
    expect((await request(app).get("/api/runtime/instances/inst_agent-one/stats")).status).toBe(401);
    const unset = await request(appFor(docker, { internalApiKey: undefined }))
      .get("/api/runtime/instances")
      .set(auth);
    expect(unset.status).toBe(500);
    expect(unset.body.error).toBe("internal_key_unset");
  });
});

describe("GET /api/runtime/instances", () => {
  it("lists the runtime containers with inst_ ids, image, status and metadata, and no secrets", async () => {
    const res = await request(appFor(docker)).get("/api/runtime/instances").set(auth);
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(res.body.instances.map((i: { id: string }) => [i.id, i]));
    expect(Object.keys(byId).sort()).toEqual(["inst_agent-one", "inst_agent-two"]);
    expect(byId["inst_agent-one"]).toEqual({
      id: "inst_agent-one",
      name: "agent-one",
      provider: "docker",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      status: "running",
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      metadata: expect.objectContaining({
        agentId: "agt_one",
        containerId: expect.any(String),
        state: "running",
      }),
    });
    expect(byId["inst_agent-two"]).toMatchObject({
      status: "stopped",
      url: null,
      image: "ghcr.io/openclaw/openclaw:2026.5.1",
    });
    expect(JSON.stringify(res.body)).not.toContain("tok-");
  });

  it("503 naming the missing variables when the platform is not configured", async () => {
    const railway = createRailwayHostingPlatform({
      apiUrl: "http://127.0.0.1:9/graphql/v2",
      tokenType: "account",
    });
    const res = await request(appFor(railway)).get("/api/runtime/instances").set(auth);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: "hosting_not_configured",
      message: expect.stringContaining("HOSTING_API_KEY, HOSTING_PROJECT_ID, HOSTING_ENVIRONMENT_ID"),
    });
  });

  it("500 when the platform API fails", async () => {
    const unreachable = createDockerHostingPlatform({ dockerHost: `unix://${join(dir, "absent.sock")}` });
    const res = await request(appFor(unreachable)).get("/api/runtime/instances").set(auth);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: "hosting_failed", message: expect.stringContaining("unreachable") });
    await unreachable.close();
  });
});

describe("GET /api/runtime/instances/:id/stats", () => {
  it("returns live CPU and memory usage of the instance", async () => {
    const res = await request(appFor(docker)).get("/api/runtime/instances/inst_agent-one/stats").set(auth);
    expect(res.status).toBe(200);
    // CPU: (50 / 1000) * 2 CPUs * 100 = 10 %; memory: 120 MB - 20 MB cache = 100 MB of 1 GB.
    expect(res.body).toEqual({
      id: "inst_agent-one",
      provider: "docker",
      cpuPercent: 10,
      memoryBytes: 100_000_000,
      memoryLimitBytes: 1_000_000_000,
      memoryPercent: 10,
      ts: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(res.body.ts))).toBe(false);
  });

  it("stamps `ts` with the injected clock", async () => {
    const clock = new ManualClock("2026-03-04T05:06:07.000Z");
    const res = await request(appFor(docker, { internalApiKey: INTERNAL_API_KEY, clock }))
      .get("/api/runtime/instances/inst_agent-one/stats")
      .set(auth);
    expect(res.body.ts).toBe("2026-03-04T05:06:07.000Z");
  });

  it("null figures for a stopped instance", async () => {
    const res = await request(appFor(docker)).get("/api/runtime/instances/inst_agent-two/stats").set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      cpuPercent: null,
      memoryBytes: null,
      memoryLimitBytes: null,
      memoryPercent: null,
    });
  });

  it("404 for an unknown instance or an id without the inst_ prefix", async () => {
    const app = appFor(docker);
    const unknown = await request(app).get("/api/runtime/instances/inst_agent-nobody/stats").set(auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe("not_found");
    for (const id of ["agent-one", "inst_"]) {
      const res = await request(app).get(`/api/runtime/instances/${id}/stats`).set(auth);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "not_found", message: `no runtime instance ${id}` });
    }
  });
});
