/**
 * The development runtime with `--hook-pre-tool-use` (the real hook script) as a process, in front of a
 * loopback stand-in for the backend's `/api/ai/chat` (scripted tool calls) and `/api/hooks/classify`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = join(import.meta.dirname, "server.mjs");
const HOOK = fileURLToPath(new URL("../../backend/hooks/pre-tool-use.mjs", import.meta.url));
const TOKEN = "dev-runtime-tools-token-0123456789";
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

let backend: FakeUpstream;
let runtime: ChildProcess;
let base = "";
let dir = "";
let output = "";
const chats: Json[] = [];
const classified: Array<{ authorization?: string; body: Json }> = [];
/** The model's next move for a chat body. */
let script: (body: Json) => Json = () => ({ role: "assistant", content: "plain" });

function answer(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
  const body = JSON.parse(raw.toString()) as Json;
  if (req.url === "/api/hooks/classify") {
    classified.push({ authorization: req.headers.authorization, body });
    sendJson(res, 200, { allow: true, tier: "safe", reason: "read-only" });
    return;
  }
  chats.push(body);
  const message = script(body);
  sendJson(res, 200, {
    id: `chatcmpl-${chats.length}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: body.model,
    choices: [{ index: 0, message, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
  });
}

const toolCall = (name: string, args: Json, id = `call_${chats.length}`) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});

function spawnRuntime(port: number, hook: string): ChildProcess {
  const child = spawn(process.execPath, [SCRIPT, "--port", String(port), "--hook-pre-tool-use", hook], {
    env: {
      PATH: process.env.PATH ?? "",
      OPENCLAW_GATEWAY_TOKEN: TOKEN,
      OPENCLAW_STATE_DIR: dir,
      PLATFORM_AI_CHAT_URL: `${backend.url}/api/ai/chat`,
      PLATFORM_CLASSIFY_URL: `${backend.url}/api/hooks/classify`,
      PERMISSION_WAIT_SECONDS: "10",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return child;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-dev-runtime-tools-"));
  backend = await startFakeUpstream(answer);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  runtime = spawnRuntime(port, HOOK);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${base}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    if (runtime.exitCode !== null) throw new Error(`the runtime exited ${runtime.exitCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`the runtime did not get ready: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}, 60_000);

afterAll(async () => {
  if (runtime && runtime.exitCode === null) {
    const exited = new Promise((resolve) => runtime.once("exit", resolve));
    runtime.kill("SIGTERM");
    await exited;
  }
  await backend?.close();
  await rm(dir, { recursive: true, force: true });
});

const chat = async (body: Json, session = "main") => {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      "x-session-key": session,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
};

describe("development runtime tools", () => {
  it("writes and reads in its workspace through the hook, and answers with the final reply", async () => {
    chats.length = 0;
    classified.length = 0;
    script = (body) => {
      const toolTurns = body.messages.filter((m: Json) => m.role === "tool");
      if (toolTurns.length === 0) return toolCall("write", { path: "notes/todo.txt", content: "buy milk" });
      if (toolTurns.length === 1) return toolCall("read", { path: "notes/todo.txt" });
      return { role: "assistant", content: `the note says: ${toolTurns[1].content}` };
    };
    const { status, body } = await chat({ messages: [{ role: "user", content: "note it" }] }, "notes");
    expect(status).toBe(200);
    expect(body.choices[0]).toEqual({
      index: 0,
      message: { role: "assistant", content: "the note says: buy milk" },
      finish_reason: "stop",
    });
    expect(body.usage).toEqual({ prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });
    expect(await readFile(join(dir, "workspace", "notes", "todo.txt"), "utf8")).toBe("buy milk");

    expect(chats).toHaveLength(3);
    expect(chats[0].tools.map((t: Json) => t.function.name)).toEqual(["bash", "read", "write"]);
    expect(chats[1].messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "write", arguments: '{"path":"notes/todo.txt","content":"buy milk"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "wrote 8 bytes to notes/todo.txt" },
    ]);
    // The hook sent each call, with the agent's token, before it ran.
    expect(classified).toEqual([
      {
        authorization: `Bearer ${TOKEN}`,
        body: {
          tool_name: "write",
          tool_input: { path: "notes/todo.txt", content: "buy milk" },
          session_id: "notes",
          hook_event_name: "PreToolUse",
        },
      },
      {
        authorization: `Bearer ${TOKEN}`,
        body: {
          tool_name: "read",
          tool_input: { path: "notes/todo.txt" },
          session_id: "notes",
          hook_event_name: "PreToolUse",
        },
      },
    ]);

    // The session keeps the user's turn and the final answer, not the tool traffic.
    script = () => ({ role: "assistant", content: "ok" });
    await chat({ messages: [{ role: "user", content: "and now?" }] }, "notes");
    expect(chats.at(-1)?.messages).toEqual([
      { role: "user", content: "note it" },
      { role: "assistant", content: "the note says: buy milk" },
      { role: "user", content: "and now?" },
    ]);
  });

  it("stops after 8 rounds of tool calls: the last asks for an answer, still asking is a 502", async () => {
    chats.length = 0;
    classified.length = 0;
    script = () => toolCall("bash", { command: "true" });
    const { status, body } = await chat({ messages: [{ role: "user", content: "loop" }] });
    expect(status).toBe(502);
    expect(body.error).toMatchObject({
      type: "upstream_error",
      message: "the model still asked for tools after 8 rounds of tool calls",
    });
    expect(chats).toHaveLength(9);
    expect(chats.slice(0, 8).every((c) => c.tool_choice === undefined)).toBe(true);
    expect(chats[8].tool_choice).toBe("none");
    expect(classified).toHaveLength(8);
  });

  it("leaves a client's own tools to the client: nothing added, nothing run", async () => {
    chats.length = 0;
    classified.length = 0;
    const tools = [{ type: "function", function: { name: "weather", parameters: { type: "object" } } }];
    script = () => toolCall("weather", { city: "Lisbon" }, "call_weather");
    const { status, body } = await chat({ tools, messages: [{ role: "user", content: "weather?" }] });
    expect(status).toBe(200);
    expect(chats).toHaveLength(1);
    expect(chats[0].tools).toEqual(tools);
    expect(body.choices[0].message.tool_calls[0].function.name).toBe("weather");
    expect(classified).toEqual([]);
  });

  it("refuses to start when the hook script is missing", async () => {
    const child = spawnRuntime(await freePort(), join(dir, "no-such-hook.mjs"));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(output).toContain("cannot prepare the tools");
  });
});
