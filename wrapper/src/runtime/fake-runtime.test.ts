import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { createSupervisor, type Supervisor } from "./supervisor";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
let supervisor: Supervisor;
let port: number;

beforeAll(async () => {
  port = await freePort();
  supervisor = createSupervisor({
    argv: [process.execPath, FAKE_RUNTIME],
    port,
    token: "t",
    stateDir: "/tmp/fake-runtime",
    configPath: "/tmp/fake-runtime/openclaw.json",
    env: { ...process.env, FAKE_RUNTIME_READY_AFTER_MS: "400" },
    healthPollMs: 20,
    stopTimeoutMs: 2_000,
  });
  await supervisor.start();
});

afterAll(() => supervisor.stop());

describe("fake runtime", () => {
  it("answers /healthz 503 until ready, then {ok: true}", async () => {
    // The first answer, once it listens (a refused connection is tried again).
    const early = await vi.waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`), {
      timeout: 5_000,
      interval: 10,
    });
    expect(early?.status).toBe(503);
    expect(supervisor.state).toBe("starting");
    await supervisor.waitFor("running");
    const ready = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(await ready.json()).toEqual({ ok: true });
  });

  it("streams 5 chunks", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/stream`);
    expect(await res.text()).toBe("chunk 1\nchunk 2\nchunk 3\nchunk 4\nchunk 5\n");
  });

  it("echoes WebSocket messages on /ws", async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const reply = new Promise<string>((resolve) => ws.once("message", (data) => resolve(String(data))));
    ws.send("ping-123");
    expect(await reply).toBe("ping-123");
    ws.close();
  });
});
