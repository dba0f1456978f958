/** The development runtime's tools on a real temporary workspace: confinement, limits, the hook's veto. */
import { mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  bashTool,
  OUTPUT_LIMIT_BYTES,
  prepareWorkspace,
  readTool,
  runToolCall,
  ToolError,
  writeTool,
} from "./tools.mjs";

const HOOK = fileURLToPath(new URL("../../backend/hooks/pre-tool-use.mjs", import.meta.url));
let root = "";
let workspace = "";
let secret = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "svc-dev-tools-"));
  workspace = await prepareWorkspace(join(root, "state", "workspace"));
  secret = join(root, "secret.txt");
  await writeFile(secret, "top secret");
  await symlink(secret, join(workspace, "link-file"));
  await symlink(root, join(workspace, "link-dir"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("read and write", () => {
  it("write creates files (parents too, mode 0600) that read gives back", async () => {
    expect(await writeTool(workspace, { path: "notes/a.txt", content: "hello" })).toBe(
      "wrote 5 bytes to notes/a.txt",
    );
    expect((await stat(join(workspace, "notes/a.txt"))).mode & 0o777).toBe(0o600);
    expect(await readTool(workspace, { path: "notes/a.txt" })).toBe("hello");
    expect(await readTool(workspace, { path: join(workspace, "notes/a.txt") })).toBe("hello");
    expect(await readTool(workspace, { path: "./notes/../notes/a.txt" })).toBe("hello");
  });

  it("refuse every path that leaves the workspace, symbolic links included", async () => {
    const escapes = [
      "../secret.txt",
      secret,
      "notes/../../secret.txt",
      "link-file",
      "link-dir/secret.txt",
      "/etc/passwd",
    ];
    for (const path of escapes) {
      await expect(readTool(workspace, { path }), path).rejects.toThrow(/outside the workspace/);
      await expect(writeTool(workspace, { path, content: "pwned" }), path).rejects.toThrow(
        /outside the workspace/,
      );
    }
    await expect(writeTool(workspace, { path: "link-dir/new.txt", content: "x" })).rejects.toThrow(
      /outside the workspace/,
    );
    expect(await readFile(secret, "utf8")).toBe("top secret");
    await expect(stat(join(root, "new.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuse bad input as a ToolError", async () => {
    for (const input of [{}, { path: "" }, { path: 5 }, { path: "a\0b" }]) {
      await expect(readTool(workspace, input)).rejects.toBeInstanceOf(ToolError);
    }
    await expect(writeTool(workspace, { path: "x.txt" })).rejects.toThrow(/content must be a string/);
    await expect(readTool(workspace, { path: "missing.txt" })).rejects.toThrow(/ENOENT/);
    await expect(readTool(workspace, { path: "notes" })).rejects.toThrow(/not a regular file/);
  });

  it("read gives back at most OUTPUT_LIMIT_BYTES", async () => {
    await writeFile(join(workspace, "big.txt"), "b".repeat(OUTPUT_LIMIT_BYTES + 10));
    const text = await readTool(workspace, { path: "big.txt" });
    expect(text).toBe(
      `${"b".repeat(OUTPUT_LIMIT_BYTES)}\n[truncated: ${OUTPUT_LIMIT_BYTES + 10} bytes in all]`,
    );
  });
});

describe("bash", () => {
  it("runs in the workspace without the runtime's secrets, and reports the exit code", async () => {
    const before = process.env.OPENCLAW_GATEWAY_TOKEN;
    process.env.OPENCLAW_GATEWAY_TOKEN = "gateway-token-of-the-runtime";
    try {
      const out = await bashTool(workspace, {
        command: "pwd; printenv OPENCLAW_GATEWAY_TOKEN || echo no token",
      });
      expect(out).toBe(`${workspace}\nno token\n[exit code 0]`);
    } finally {
      if (before === undefined) delete process.env.OPENCLAW_GATEWAY_TOKEN;
      else process.env.OPENCLAW_GATEWAY_TOKEN = before;
    }
    expect(await bashTool(workspace, { command: "echo oops >&2; exit 3" })).toBe("oops\n[exit code 3]");
    await expect(bashTool(workspace, { command: " " })).rejects.toThrow(/non-empty string/);
  });

  it("caps the output it gives back", async () => {
    const out = await bashTool(
      workspace,
      { command: "head -c 100000 /dev/zero | tr '\\0' a" },
      { outputLimit: 1000 },
    );
    expect(out).toBe(
      `${"a".repeat(1000)}\n[output truncated: 100000 bytes in all, 1000 shown]\n[exit code 0]`,
    );
  });

  it("kills the command and what it started when the time is up", async () => {
    const out = await bashTool(
      workspace,
      { command: "sleep 120 & echo $! > bg.pid; wait" },
      { timeoutMs: 2_000 },
    );
    expect(out).toBe("[killed: no exit within 2 s]");
    const pid = (await readFile(join(workspace, "bg.pid"), "utf8")).trim();
    expect(pid).toMatch(/^\d+$/);
    // The background sleep was in the killed group: gone, or a zombie waiting to be reaped.
    await vi.waitFor(
      async () => {
        const state = await readFile(`/proc/${pid}/stat`, "utf8").then(
          (text) => text.slice(text.lastIndexOf(")") + 2, text.lastIndexOf(")") + 3),
          () => "gone",
        );
        if (state !== "gone" && state !== "Z") throw new Error(`the background process is ${state}`);
      },
      { timeout: 10_000, interval: 20 },
    );
  });
});

describe("runToolCall", () => {
  const tools = () => ({ workspace, hookPath: HOOK });
  const call = (name: string, args: unknown) => ({
    id: "call_1",
    function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
  });

  it("runs nothing when the hook cannot allow it (fail-closed)", async () => {
    // The hook has no classify URL or gateway token in this process: it must deny.
    const saved = { url: process.env.PLATFORM_CLASSIFY_URL, token: process.env.OPENCLAW_GATEWAY_TOKEN };
    delete process.env.PLATFORM_CLASSIFY_URL;
    delete process.env.OPENCLAW_GATEWAY_TOKEN;
    try {
      const denied = await runToolCall(tools(), call("bash", { command: "touch denied-marker" }), {
        sessionKey: "main",
      });
      expect(denied).toMatch(/^permission denied: .*OPENCLAW_GATEWAY_TOKEN/);
      const missingHook = await runToolCall(
        { workspace, hookPath: join(root, "no-such-hook.mjs") },
        call("write", { path: "denied-marker", content: "x" }),
        { sessionKey: "main" },
      );
      expect(missingHook).toMatch(/^permission denied: the hook failed \(exit 1\)/);
    } finally {
      if (saved.url !== undefined) process.env.PLATFORM_CLASSIFY_URL = saved.url;
      if (saved.token !== undefined) process.env.OPENCLAW_GATEWAY_TOKEN = saved.token;
    }
    await expect(stat(join(workspace, "denied-marker"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("answers unknown tools and bad arguments without running anything", async () => {
    const context = { sessionKey: "main" };
    expect(await runToolCall(tools(), call("exec", { command: "id" }), context)).toBe(
      'error: unknown tool "exec"',
    );
    expect(await runToolCall(tools(), call("bash", "{not json"), context)).toBe(
      "error: the arguments are not valid JSON",
    );
    expect(await runToolCall(tools(), call("bash", "[1]"), context)).toBe(
      "error: the arguments must be a JSON object",
    );
  });
});
