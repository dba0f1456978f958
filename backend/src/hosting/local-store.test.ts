import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalServiceStore } from "./local-store";

let root = "";
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "svc-local-store-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("LocalServiceStore", () => {
  it("stamps updatedAt with its clock on every write", async () => {
    const clock = new ManualClock("2026-05-06T07:08:09.000Z");
    const store = new LocalServiceStore(root, clock);
    const record = {
      agentId: "agt_clock",
      name: "clock",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      env: {},
      wrapperPort: 1,
      runtimePort: 2,
      desired: "running" as const,
      pid: null,
      pidStart: null,
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    };
    await store.write(record);
    expect(await store.read("agt_clock")).toEqual({ ...record, updatedAt: "2026-05-06T07:08:09.000Z" });
    clock.advance(60_000);
    await store.write(record);
    expect((await store.read("agt_clock"))?.updatedAt).toBe("2026-05-06T07:09:09.000Z");
  });
});
