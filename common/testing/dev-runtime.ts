/**
 * The development runtime (`wrapper/dev-runtime/server.mjs`, a real runtime gateway) as a child process on
 * a free loopback port, answering chat through the given `/api/ai/chat` with its gateway token, for tests
 * that need a real agent without the hosting driver and wrapper around it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../src/index";

const SERVER = fileURLToPath(new URL("../../wrapper/dev-runtime/server.mjs", import.meta.url));

export interface DevRuntime {
  url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startDevRuntime(options: { token: string; aiChatUrl: string }): Promise<DevRuntime> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const stateDir = await mkdtemp(join(tmpdir(), "svc-dev-runtime-"));
  const { PLATFORM_BACKEND_URL: _unused, ...env } = process.env;
  const child: ChildProcess = spawn(process.execPath, [SERVER, "--port", String(port)], {
    env: {
      ...env,
      OPENCLAW_GATEWAY_TOKEN: options.token,
      OPENCLAW_STATE_DIR: stateDir,
      PLATFORM_AI_CHAT_URL: options.aiChatUrl,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await rm(stateDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the development runtime did not get ready: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, output: () => out, stop };
}
