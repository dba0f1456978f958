import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenClawGateway, FakeRpcError, startFakeOpenClawGateway } from "@svc/common/testing";
import express from "express";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { wrapperErrorMapper } from "../http/errors";
import { loadOrCreateDeviceIdentity } from "../openclaw/device-identity";
import { createGatewayRpc, type GatewayRpc } from "../openclaw/rpc";
import { pendingRequests } from "../pairing/requests";
import { adminAuth } from "./auth";
import { pairingRoutes } from "./pairing";

const TOKEN = "gw-token-pairing";
let dir: string;
let gateway: FakeOpenClawGateway;
let rpc: GatewayRpc;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wrapper-pairing-"));
  gateway = await startFakeOpenClawGateway({ token: TOKEN });
  rpc = createGatewayRpc({
    port: gateway.port,
    token: TOKEN,
    identity: loadOrCreateDeviceIdentity(join(dir, "device.json")),
  });
});
afterEach(async () => {
  rpc.close();
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

function appFor(password?: string) {
  const app = express();
  app.use(pairingRoutes({ rpc, requireAdmin: adminAuth(password).requireAdmin }));
  app.use(wrapperErrorMapper());
  return app;
}

/** A pending request as OpenClaw 2026.4.11's `device.pair.list` lists it. */
const OPENCLAW_PENDING = {
  requestId: "7c1b6a1e-55f0-4c7e-9a9e-1f2d3c4b5a69",
  deviceId: "a".repeat(64),
  publicKey: "pk",
  platform: "linux",
  clientId: "openclaw-control-ui",
  clientMode: "ui",
  role: "operator",
  roles: ["operator"],
  scopes: ["operator.read", "operator.write"],
  remoteIp: "203.0.113.7",
  isRepair: false,
  ts: Date.parse("2026-03-01T10:00:00.000Z"),
};

describe("GET /api/pairing/pending", () => {
  it("maps OpenClaw's pending requests (device.pair.list), with expiresAt = ts + 5 minutes", async () => {
    gateway.setMethod("device.pair.list", () => ({
      pending: [OPENCLAW_PENDING, { displayName: "no id, skipped" }],
      paired: [{ deviceId: "b".repeat(64) }],
    }));
    const res = await request(appFor()).get("/api/pairing/pending");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      pending: [
        {
          id: OPENCLAW_PENDING.requestId,
          requestId: OPENCLAW_PENDING.requestId,
          // OpenClaw records no device name unless the client sent a display name.
          name: null,
          deviceName: null,
          ip: "203.0.113.7",
          remoteIp: "203.0.113.7",
          role: "operator",
          createdAt: "2026-03-01T10:00:00.000Z",
          expiresAt: "2026-03-01T10:05:00.000Z",
          deviceId: "a".repeat(64),
          platform: "linux",
          clientId: "openclaw-control-ui",
          scopes: ["operator.read", "operator.write"],
        },
      ],
    });
    expect(gateway.calls.map((c) => c.method)).toEqual(["device.pair.list"]);
  });

  it("reads a display name and other field variants", () => {
    const [mapped] = pendingRequests({
      pending: [
        {
          id: "req-2",
          displayName: "Laptop",
          ip: "10.0.0.3",
          roles: ["viewer"],
          createdAt: "2026-03-01T10:01:00Z",
        },
      ],
    });
    expect(mapped).toMatchObject({ id: "req-2", name: "Laptop", ip: "10.0.0.3", role: "viewer", scopes: [] });
    expect(pendingRequests({})).toEqual([]);
    expect(pendingRequests(null)).toEqual([]);
  });

  it("502 with the runtime's reason when the RPC fails", async () => {
    gateway.setMethod("device.pair.list", () => {
      throw new FakeRpcError("UNAVAILABLE", "pairing store locked");
    });
    const res = await request(appFor()).get("/api/pairing/pending");
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ ok: false, error: "device.pair.list: pairing store locked" });
  });

  it("502 when the runtime does not answer at all", async () => {
    await gateway.close();
    const res = await request(appFor()).get("/api/pairing/pending");
    expect(res.status).toBe(502);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toMatch(/^device\.pair\.list: runtime RPC/);
  });

  it("401 without admin credentials, and the runtime is not asked", async () => {
    const res = await request(appFor("pw")).get("/api/pairing/pending");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, error: "unauthorized" });
    expect(gateway.calls).toEqual([]);
  });
});

describe("POST /api/pairing/approve and /deny", () => {
  it("approve calls device.pair.approve {requestId}", async () => {
    gateway.setMethod("device.pair.approve", () => ({ ok: true }));
    const res = await request(appFor()).post("/api/pairing/approve").send({ requestId: "req_1" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, message: "Pairing request req_1 approved" });
    expect(gateway.calls).toEqual([{ method: "device.pair.approve", params: { requestId: "req_1" } }]);
  });

  it("deny calls device.pair.reject {requestId}", async () => {
    gateway.setMethod("device.pair.reject", () => ({ ok: true }));
    const res = await request(appFor()).post("/api/pairing/deny").send({ requestId: "A-b_9" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, message: "Pairing request A-b_9 denied" });
    expect(gateway.calls).toEqual([{ method: "device.pair.reject", params: { requestId: "A-b_9" } }]);
  });

  it("400 for a missing, non-string or malformed requestId, and bad JSON; the runtime is not asked", async () => {
    const app = appFor();
    const bodies: unknown[] = [
      {},
      { requestId: 12 },
      { requestId: "" },
      { requestId: "a;b" },
      { requestId: "--all" },
      { requestId: "a b" },
      { requestId: "x".repeat(129) },
    ];
    for (const body of bodies) {
      const res = await request(app)
        .post("/api/pairing/approve")
        .send(body as object);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.ok).toBe(false);
    }
    const bad = await request(app)
      .post("/api/pairing/deny")
      .set("Content-Type", "application/json")
      .send("{oops");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ok: false, error: "body is not valid JSON" });
    expect(gateway.calls).toEqual([]);
  });

  it("502 when the runtime refuses (an unknown request id)", async () => {
    gateway.setMethod("device.pair.approve", () => {
      throw new FakeRpcError("INVALID_REQUEST", "unknown requestId");
    });
    const res = await request(appFor()).post("/api/pairing/approve").send({ requestId: "r1" });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ ok: false, error: "device.pair.approve: unknown requestId" });
  });

  it("401 without admin credentials", async () => {
    const res = await request(appFor("pw")).post("/api/pairing/deny").send({ requestId: "r1" });
    expect(res.status).toBe(401);
    expect(gateway.calls).toEqual([]);
  });
});
