import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import express from "express";
import request from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { wrapperErrorMapper } from "../http/errors";
import { parsePendingList } from "../pairing/cli";
import { adminAuth } from "./auth";
import { pairingRoutes } from "./pairing";

const FAKE_CLI = resolve(import.meta.dirname, "../../../common/testing/fakes/agent-runtime.mjs");
let dir: string;
let listFile: string;
let callsFile: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wrapper-pairing-"));
  listFile = join(dir, "list.json");
  callsFile = join(dir, "calls.jsonl");
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function appFor(extraEnv: Record<string, string> = {}, password?: string) {
  const app = express();
  app.use(
    pairingRoutes({
      cliArgv: [process.execPath, FAKE_CLI],
      requireAdmin: adminAuth(password).requireAdmin,
      env: { ...process.env, FAKE_CLI_LIST_FILE: listFile, FAKE_CLI_CALLS_FILE: callsFile, ...extraEnv },
    }),
  );
  app.use(wrapperErrorMapper());
  return app;
}

async function calls(): Promise<string[][]> {
  const text = await readFile(callsFile, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe("GET /api/pairing/pending", () => {
  it("maps the CLI's pending requests, with expiresAt = createdAt + 5 minutes", async () => {
    const created = Date.parse("2026-03-01T10:00:00.000Z");
    await writeFile(
      listFile,
      JSON.stringify({
        pending: [
          { requestId: "req_1", displayName: "Pixel 9", remoteIp: "10.0.0.2", role: "operator", ts: created },
          {
            id: "req-2",
            name: "Laptop",
            ip: "10.0.0.3",
            roles: ["viewer"],
            createdAt: "2026-03-01T10:01:00Z",
          },
          { id: "req3", deviceName: "Tablet", createdAtMs: created + 1000 },
          { name: "no id, skipped" },
        ],
        paired: [{ id: "old" }],
      }),
    );
    const res = await request(appFor()).get("/api/pairing/pending");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      pending: [
        {
          id: "req_1",
          requestId: "req_1",
          name: "Pixel 9",
          deviceName: "Pixel 9",
          ip: "10.0.0.2",
          remoteIp: "10.0.0.2",
          role: "operator",
          createdAt: "2026-03-01T10:00:00.000Z",
          expiresAt: "2026-03-01T10:05:00.000Z",
        },
        {
          id: "req-2",
          requestId: "req-2",
          name: "Laptop",
          deviceName: "Laptop",
          ip: "10.0.0.3",
          remoteIp: "10.0.0.3",
          role: "viewer",
          createdAt: "2026-03-01T10:01:00.000Z",
          expiresAt: "2026-03-01T10:06:00.000Z",
        },
        {
          id: "req3",
          requestId: "req3",
          name: "Tablet",
          deviceName: "Tablet",
          ip: null,
          remoteIp: null,
          role: null,
          createdAt: "2026-03-01T10:00:01.000Z",
          expiresAt: "2026-03-01T10:05:01.000Z",
        },
      ],
    });
    expect(await calls()).toEqual([["devices", "list", "--json"]]);
  });

  it("accepts a top-level array and {requests: [...]}", () => {
    expect(parsePendingList('[{"id":"a","createdAt":0}]').map((p) => p.id)).toEqual(["a"]);
    expect(parsePendingList('{"requests":[{"requestId":"b"}]}').map((p) => p.id)).toEqual(["b"]);
    expect(parsePendingList("{}")).toEqual([]);
  });

  it("502 when the CLI fails or prints something that is not JSON", async () => {
    const failing = await request(appFor({ FAKE_CLI_FAIL: "list" })).get("/api/pairing/pending");
    expect(failing.status).toBe(502);
    expect(failing.body.ok).toBe(false);
    expect(failing.body.error).toContain("fake failure in devices list");
    await writeFile(listFile, "not json");
    const garbage = await request(appFor()).get("/api/pairing/pending");
    expect(garbage.status).toBe(502);
    expect(garbage.body).toEqual({ ok: false, error: "runtime CLI returned invalid JSON" });
  });

  it("502 when the CLI cannot be started", async () => {
    const app = express();
    app.use(
      pairingRoutes({ cliArgv: [join(dir, "missing-cli")], requireAdmin: adminAuth(undefined).requireAdmin }),
    );
    app.use(wrapperErrorMapper());
    const res = await request(app).get("/api/pairing/pending");
    expect(res.status).toBe(502);
    expect(res.body.ok).toBe(false);
  });

  it("401 without admin credentials", async () => {
    const res = await request(appFor({}, "pw")).get("/api/pairing/pending");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, error: "unauthorized" });
    expect(await calls()).toEqual([]);
  });
});

describe("POST /api/pairing/approve and /deny", () => {
  it("approve runs `devices approve <id>`", async () => {
    const res = await request(appFor()).post("/api/pairing/approve").send({ requestId: "req_1" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, message: "Pairing request req_1 approved" });
    expect(await calls()).toEqual([["devices", "approve", "req_1"]]);
  });

  it("deny runs `devices reject <id>`", async () => {
    const res = await request(appFor()).post("/api/pairing/deny").send({ requestId: "A-b_9" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, message: "Pairing request A-b_9 denied" });
    expect(await calls()).toEqual([["devices", "reject", "A-b_9"]]);
  });

  it("400 for a missing, non-string or malformed requestId, and bad JSON; the CLI is not run", async () => {
    const app = appFor();
    const bodies: unknown[] = [
      {},
      { requestId: 12 },
      { requestId: "" },
      { requestId: "a;rm" },
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
    expect(await calls()).toEqual([]);
  });

  it("502 when the CLI fails", async () => {
    const res = await request(appFor({ FAKE_CLI_FAIL: "approve" }))
      .post("/api/pairing/approve")
      .send({ requestId: "r1" });
    expect(res.status).toBe(502);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toContain("fake failure in devices approve");
  });

  it("401 without admin credentials", async () => {
    const res = await request(appFor({}, "pw")).post("/api/pairing/deny").send({ requestId: "r1" });
    expect(res.status).toBe(401);
    expect(await calls()).toEqual([]);
  });
});
