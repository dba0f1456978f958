/**
 * The development runtime's tools, offered to the AI provider as OpenAI-style `tools`: `bash` (a command
 * in the agent's workspace, with a timeout and an output cap), `read` and `write` (files inside the
 * workspace only). Each call runs only after the pre-tool-use hook allows it (see `askHook`).
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { lstat, mkdir, open, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A `bash` call is killed (with everything it started) after this long. */
export const BASH_TIMEOUT_MS = 60_000;
/** Bytes of a command's output (stdout and stderr together) or of a file read given back to the model. */
export const OUTPUT_LIMIT_BYTES = 64 * 1024;
/** Largest file `write` creates. */
export const WRITE_LIMIT_BYTES = 1024 * 1024;
/** Slack on top of the hook's own wait (`PERMISSION_WAIT_SECONDS`) before the hook process is killed. */
const HOOK_GRACE_MS = 90_000;
const HOOK_OUTPUT_LIMIT = 4096;
/** The only variables a command sees: no gateway token, no platform URL (they belong to the runtime). */
const COMMAND_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL"];

/** The tool definitions sent to the provider (OpenAI `tools`). */
export const TOOL_DEFINITIONS = [
  {
    type: "function",
    function: {
      name: "bash",
      description:
        "Run a shell command with bash in the agent's workspace directory. Output (stdout and stderr) is " +
        `capped at ${OUTPUT_LIMIT_BYTES} bytes; the command is killed after ${BASH_TIMEOUT_MS / 1000} s.`,
      parameters: {
        type: "object",
        properties: { command: { type: "string", description: "the command line" } },
        required: ["command"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "read",
      description: "Read a text file inside the agent's workspace (a path relative to it).",
      parameters: {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "write",
      description: "Write a text file inside the agent's workspace (created or replaced; parents created).",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, content: { type: "string" } },
        required: ["path", "content"],
      },
    },
  },
];

/** A tool call that cannot run; its message goes back to the model as the tool's result. */
export class ToolError extends Error {}

const isInside = (root, path) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
};

/**
 * The absolute path of `path` inside `workspace`, refusing anything that leaves it: `..`, absolute paths
 * elsewhere, and symbolic links (at the path or in any existing parent) that point outside.
 */
export async function pathInside(workspace, path) {
  if (typeof path !== "string" || path.trim() === "") throw new ToolError("path must be a non-empty string");
  if (path.includes("\0")) throw new ToolError("path must not contain NUL");
  const root = await realpath(workspace);
  const target = resolve(root, path);
  if (!isInside(root, target)) throw new ToolError(`${path} is outside the workspace`);
  // The deepest part of the path that exists must resolve inside too (a symlink may point anywhere).
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!isInside(root, real)) throw new ToolError(`${path} is outside the workspace`);
      break;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (err.code !== "ENOENT" || existing === root)
        throw new ToolError(`${path}: ${err.code ?? err.message}`);
      existing = dirname(existing);
    }
  }
  return target;
}

/** `read`: at most `OUTPUT_LIMIT_BYTES` of a regular file inside the workspace. */
export async function readTool(workspace, input) {
  const file = await pathInside(workspace, input?.path);
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    throw new ToolError(`${input.path}: ${err.code ?? err.message}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(`${input.path} is not a regular file`);
    const buffer = Buffer.alloc(Math.min(info.size, OUTPUT_LIMIT_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString("utf8");
    return info.size > OUTPUT_LIMIT_BYTES ? `${text}\n[truncated: ${info.size} bytes in all]` : text;
  } finally {
    await handle.close();
  }
}

/** `write`: creates or replaces a file inside the workspace (mode 0600), never through a symbolic link. */
export async function writeTool(workspace, input) {
  if (typeof input?.content !== "string") throw new ToolError("content must be a string");
  const size = Buffer.byteLength(input.content);
  if (size > WRITE_LIMIT_BYTES) throw new ToolError(`content exceeds ${WRITE_LIMIT_BYTES} bytes`);
  const file = await pathInside(workspace, input.path);
  const stat = await lstat(file).catch(() => null);
  if (stat?.isSymbolicLink()) throw new ToolError(`${input.path} is a symbolic link`);
  if (stat && !stat.isFile()) throw new ToolError(`${input.path} is not a regular file`);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  // The parents just made (or found) must still be inside.
  await pathInside(workspace, input.path);
  let handle;
  try {
    handle = await open(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o600,
    );
  } catch (err) {
    throw new ToolError(`${input.path}: ${err.code ?? err.message}`);
  }
  try {
    await handle.writeFile(input.content);
  } finally {
    await handle.close();
  }
  return `wrote ${size} bytes to ${relative(await realpath(workspace), file)}`;
}

/** Kills a detached child and everything it started. */
function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/**
 * `bash`: `bash -c <command>` in the workspace, its own process group, a minimal environment; the result
 * is the output (first `outputLimit` bytes) and how it ended.
 */
export function bashTool(
  workspace,
  input,
  { signal, timeoutMs = BASH_TIMEOUT_MS, outputLimit = OUTPUT_LIMIT_BYTES } = {},
) {
  if (typeof input?.command !== "string" || input.command.trim() === "") {
    return Promise.reject(new ToolError("command must be a non-empty string"));
  }
  const env = {};
  for (const name of COMMAND_ENV) if (process.env[name] !== undefined) env[name] = process.env[name];
  return new Promise((resolvePromise, reject) => {
    const child = spawn("bash", ["-c", input.command], {
      cwd: workspace,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const chunks = [];
    let kept = 0;
    let total = 0;
    let timedOut = false;
    const take = (chunk) => {
      total += chunk.length;
      if (kept >= outputLimit) return;
      const part = chunk.subarray(0, outputLimit - kept);
      kept += part.length;
      chunks.push(part);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const onAbort = () => killGroup(child);
    signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (err) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      reject(new ToolError(`bash could not be started: ${err.message}`));
    });
    child.on("close", (code, killedBy) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      const text = Buffer.concat(chunks).toString("utf8");
      const notes = [];
      if (total > kept) notes.push(`[output truncated: ${total} bytes in all, ${kept} shown]`);
      if (timedOut) notes.push(`[killed: no exit within ${timeoutMs / 1000} s]`);
      else notes.push(killedBy ? `[killed by ${killedBy}]` : `[exit code ${code}]`);
      const separator = text === "" || text.endsWith("\n") ? "" : "\n";
      resolvePromise(`${text}${separator}${notes.join("\n")}`);
    });
  });
}

/**
 * Asks the pre-tool-use hook (`hookPath`, run with this runtime's environment: `PLATFORM_CLASSIFY_URL`,
 * `OPENCLAW_GATEWAY_TOKEN`, `PERMISSION_WAIT_SECONDS`) whether a tool call may run: the hook JSON on its
 * stdin, exit 0 allows, anything else — a block, a crash, no answer — denies, with the hook's reason.
 * @returns {Promise<{allowed: boolean, reason: string}>}
 */
export function askHook(hookPath, call, { signal } = {}) {
  const waitSeconds = Number(process.env.PERMISSION_WAIT_SECONDS);
  const limitMs =
    (Number.isFinite(waitSeconds) && waitSeconds >= 0 ? waitSeconds : 300) * 1000 + HOOK_GRACE_MS;
  const [command, args] = /\.[cm]?js$/.test(hookPath) ? [process.execPath, [hookPath]] : [hookPath, []];
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { stdio: ["pipe", "ignore", "pipe"], detached: true });
    let stderr = "";
    let settled = false;
    const done = (allowed, reason) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolvePromise({ allowed, reason });
    };
    const timer = setTimeout(() => {
      killGroup(child);
      done(false, `permission denied: the hook did not answer within ${limitMs / 1000} s`);
    }, limitMs);
    const onAbort = () => {
      killGroup(child);
      done(false, "permission denied: the request was aborted");
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stderr.on("data", (chunk) => {
      if (stderr.length < HOOK_OUTPUT_LIMIT) stderr += chunk.toString("utf8");
    });
    child.stdin.on("error", () => {});
    child.on("error", (err) => done(false, `permission denied: the hook could not be run (${err.message})`));
    child.on("close", (code, killedBy) => {
      if (code === 0) return done(true, "allowed");
      const line = stderr.trim().split("\n")[0].slice(0, 500);
      if (code === 2 && line.startsWith("permission denied")) return done(false, line);
      const how = killedBy ? `was killed by ${killedBy}` : `failed (exit ${code})`;
      done(false, `permission denied: the hook ${how}${line ? `: ${line}` : ""}`);
    });
    child.stdin.end(
      JSON.stringify({
        tool_name: call.name,
        tool_input: call.input,
        session_id: call.sessionKey,
        hook_event_name: "PreToolUse",
      }),
    );
  });
}

/**
 * One tool call of the model: its arguments parsed, the hook asked, then the tool run. Always resolves
 * with the text that goes back to the model as the tool's result (a refusal or an error included).
 * @param {{workspace: string, hookPath: string, bashTimeoutMs?: number}} tools
 */
export async function runToolCall(tools, toolCall, { sessionKey, signal, log }) {
  const name = toolCall?.function?.name;
  if (!["bash", "read", "write"].includes(name)) return `error: unknown tool ${JSON.stringify(name)}`;
  let input;
  try {
    input = JSON.parse(toolCall.function.arguments || "{}");
  } catch {
    return "error: the arguments are not valid JSON";
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return "error: the arguments must be a JSON object";
  }
  const verdict = await askHook(tools.hookPath, { name, input, sessionKey }, { signal });
  log?.info("tool call", {
    tool: name,
    allowed: verdict.allowed,
    ...(verdict.allowed ? {} : { reason: verdict.reason }),
  });
  if (!verdict.allowed) return verdict.reason;
  try {
    if (name === "bash")
      return await bashTool(tools.workspace, input, { signal, timeoutMs: tools.bashTimeoutMs });
    if (name === "read") return await readTool(tools.workspace, input);
    return await writeTool(tools.workspace, input);
  } catch (err) {
    if (err instanceof ToolError) return `error: ${err.message}`;
    throw err;
  }
}

/** Creates the workspace (mode 0700) and returns its real path. */
export async function prepareWorkspace(dir) {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return realpath(dir);
}

export const workspaceOf = (stateRoot) => join(stateRoot, "workspace");
