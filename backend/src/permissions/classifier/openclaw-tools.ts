/**
 * OpenClaw's built-in tools (issue #23), by the names and parameters of OpenClaw 2026.4.11 (its `dist/`:
 * `tool-policy` lists the core tools, each tool's `Type.Object` schema its parameters). The guard plugin
 * (wrapper/openclaw-plugin) sends every call here; a tool not named here is unknown, so dangerous. Reads of
 * the agent's own state and public network reads are safe; typing into a `process` reaches a program the
 * classifier cannot see, and whatever acts beyond the agent's own turn (other sessions, schedules, messages,
 * devices, the browser, code, paid generators) is dangerous. An internal URL is dangerous whatever OpenClaw's
 * own fetch guard is set to, and so is any tool given `gatewayUrl`/`gatewayToken` (its call goes elsewhere).
 */
import { classifyCommand } from "./command";
import type { PathGuard } from "./protected";
import { type Classification, dangerous, safe, shown, worse } from "./types";
import { internalUrlReason } from "./urls";
import { isHarmlessVariable } from "./variables";
import { classifyReadPath, classifyWrittenPaths } from "./write-target";

type Input = Record<string, unknown> | null;
type Rule = (input: Input, guard: PathGuard) => Classification;

/**
 * `exec`'s parameters besides `command` (schema: `command, workdir, env, yieldMs, background, timeout,
 * pty, elevated, host, security, ask, node`), applied to the command's verdict.
 */
export function execParameters(
  input: Record<string, unknown>,
  command: Classification,
  guard: PathGuard,
): Classification {
  let result = command;
  const { workdir, env, host, node, elevated, security, ask } = input;
  if (workdir !== undefined) {
    if (typeof workdir !== "string") return dangerous("malformed-parameters", "exec workdir is not a string");
    // The command runs as if after `cd <workdir>`: a root-like or protected directory counts.
    result = worse(result, classifyCommand(`cd ${singleQuoted(workdir)}\n${input.command}`, guard));
  }
  if (env !== undefined) result = worse(result, environmentVerdict(env));
  if (elevated !== undefined && elevated !== false) {
    result = worse(result, dangerous("elevated-exec", "exec with elevated permissions"));
  }
  if (node !== undefined || (host !== undefined && !LOCAL_HOSTS.has(String(host)))) {
    result = worse(
      result,
      dangerous("remote-execution", `exec on another host: ${shown(String(node ?? host))}`),
    );
  }
  if (security !== undefined && !STRICT_SECURITY.has(String(security))) {
    result = worse(result, dangerous("exec-policy", `exec security mode ${shown(String(security))}`));
  }
  if (ask !== undefined && !STRICT_ASK.has(String(ask))) {
    result = worse(result, dangerous("exec-policy", `exec ask mode ${shown(String(ask))}`));
  }
  return result;
}

/** Where an `exec` runs in the agent's own container: the gateway itself, or its sandbox. */
const LOCAL_HOSTS = new Set(["auto", "gateway", "sandbox"]);
const STRICT_SECURITY = new Set(["deny", "allowlist"]);
const STRICT_ASK = new Set(["on-miss", "always"]);

/** Only the variables a command line may set too (variables.ts): any other can change what runs. */
function environmentVerdict(env: unknown): Classification {
  if (env === null || typeof env !== "object" || Array.isArray(env)) {
    return dangerous("malformed-parameters", "exec env is not an object");
  }
  for (const name of Object.keys(env)) {
    if (!isHarmlessVariable(name)) {
      return dangerous("environment-assignment", `environment assignment: ${shown(name)}`);
    }
  }
  return safe("environment-assignment", "harmless environment");
}

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

// --- process ---------------------------------------------------------------------------------------

const PROCESS_READS = new Set(["list", "poll", "log"]);
const PROCESS_INPUTS = new Set(["write", "send-keys", "submit", "paste"]);
const PROCESS_STOPS = new Set(["kill", "remove"]);

function processTool(input: Input): Classification {
  const action = input?.action;
  if (typeof action !== "string") return dangerous("missing-action", "process without an action");
  if (PROCESS_READS.has(action)) return safe("process-read", `process ${action}`);
  // A finished session's output is forgotten; nothing runs or stops.
  if (action === "clear") return safe("process-read", "process clear");
  if (PROCESS_INPUTS.has(action)) {
    return dangerous("process-input", `process ${action}: input to a running program`);
  }
  if (PROCESS_STOPS.has(action)) return dangerous("process-control", `process control: ${action}`);
  return dangerous("unknown-action", `process action ${shown(action)}`);
}

// --- apply_patch -----------------------------------------------------------------------------------

const PATCH_WRITES = ["*** Add File: ", "*** Update File: ", "*** Move to: "];
const PATCH_DELETE = "*** Delete File: ";

/**
 * The files a patch names. Every line is read (OpenClaw trims each header line before its marker), so a
 * marker inside a hunk's text only adds a path: never fewer files than the patch touches.
 */
export function patchFiles(patch: string): { written: string[]; deleted: string[] } {
  const written: string[] = [];
  const deleted: string[] = [];
  for (const raw of patch.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line.startsWith("***")) continue;
    if (line.startsWith(PATCH_DELETE)) deleted.push(line.slice(PATCH_DELETE.length));
    for (const marker of PATCH_WRITES) if (line.startsWith(marker)) written.push(line.slice(marker.length));
  }
  return { written, deleted };
}

function applyPatch(input: Input, guard: PathGuard): Classification {
  const patch = input?.input;
  if (typeof patch !== "string") return dangerous("missing-patch", "apply_patch without a patch");
  const { written, deleted } = patchFiles(patch);
  if (written.length + deleted.length === 0) return dangerous("missing-path", "apply_patch names no file");
  let result = written.length > 0 ? classifyWrittenPaths(written, guard) : null;
  for (const path of deleted) {
    const verdict = worse(
      dangerous("file-deletion", `file deletion: ${shown(path)}`),
      classifyWrittenPaths([path], guard),
    );
    result = result === null ? verdict : worse(result, verdict);
  }
  return result as Classification;
}

// --- URLs (urls.ts) ---------------------------------------------------------------------------------

function webFetch(input: Input): Classification {
  const url = input?.url;
  if (typeof url !== "string") return dangerous("missing-url", "web_fetch without a url");
  const internal = internalUrlReason(url);
  if (internal !== null) return dangerous("internal-network", `web_fetch ${internal}`);
  return safe("network-read", `network read: web_fetch ${shown(new URL(url).hostname)}`);
}

/**
 * `image` and `pdf` read local files or URLs (`image`/`images`, `pdf`/`pdfs`) and send them to a model:
 * a protected path or an internal URL is dangerous, anything else a read.
 */
function mediaRead(tool: string, single: string, many: string): Rule {
  return (input, guard) => {
    const sources: unknown[] = [input?.[single], ...(Array.isArray(input?.[many]) ? input[many] : [])];
    for (const source of sources) {
      if (source === undefined) continue;
      if (typeof source !== "string")
        return dangerous("malformed-parameters", `${tool} source is not a string`);
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) && !source.toLowerCase().startsWith("file://")) {
        const internal = internalUrlReason(source);
        if (internal !== null) return dangerous("internal-network", `${tool} ${internal}`);
        continue;
      }
      const verdict = classifyReadPath(source, guard);
      if (verdict !== null) return verdict;
    }
    return safe("file-read", `${tool} read`);
  };
}

// --- the table -------------------------------------------------------------------------------------

const always =
  (verdict: Classification): Rule =>
  () =>
    verdict;

/** A tool whose `action` decides: the listed actions are safe, every other (or none) dangerous. */
function byAction(
  tool: string,
  safeActions: readonly string[],
  otherwise: string,
  defaultAction?: string,
): Rule {
  const reads = new Set(safeActions);
  return (input) => {
    const action = input?.action ?? defaultAction;
    if (typeof action === "string" && reads.has(action)) return safe("agent-state-read", `${tool} ${action}`);
    return dangerous(
      otherwise,
      `${tool} ${typeof action === "string" ? shown(action) : "without an action"}`,
    );
  };
}

const GENERATION = (tool: string) =>
  always(dangerous("paid-generation", `${tool}: a paid call to a generation provider`));

const RULES: Readonly<Record<string, Rule>> = {
  process: processTool,
  apply_patch: applyPatch,
  "apply-patch": applyPatch,
  sessions_list: always(safe("agent-state-read", "sessions list")),
  sessions_history: always(safe("agent-state-read", "session history")),
  session_status: (input) =>
    input?.model === undefined
      ? safe("agent-state-read", "session status")
      : dangerous("agent-state-change", `session model change: ${shown(String(input.model))}`),
  agents_list: always(safe("agent-state-read", "agents list")),
  memory_search: always(safe("agent-state-read", "memory search")),
  memory_get: (input, guard) => {
    const path = input?.path;
    const verdict = typeof path === "string" ? classifyReadPath(path, guard) : null;
    return verdict ?? safe("agent-state-read", "memory read");
  },
  update_plan: always(safe("agent-state-read", "plan update")),
  sessions_yield: always(safe("agent-state-read", "turn yielded to sub-agents")),
  subagents: byAction("subagents", ["list"], "agent-control", "list"),
  sessions_send: always(dangerous("agent-control", "message to another session")),
  sessions_spawn: always(dangerous("agent-control", "sub-agent spawn")),
  cron: byAction("cron", ["status", "list", "runs"], "schedule-change"),
  web_search: always(safe("network-read", "network read: web search")),
  x_search: always(safe("network-read", "network read: X search")),
  web_fetch: webFetch,
  image: mediaRead("image", "image", "images"),
  pdf: mediaRead("pdf", "pdf", "pdfs"),
  message: always(dangerous("message-send", "message: acts on a messaging channel")),
  gateway: always(
    dangerous("gateway-control", "gateway: the runtime's own configuration, restart or update"),
  ),
  nodes: always(dangerous("device-control", "nodes: paired devices (camera, screen, location, commands)")),
  browser: always(dangerous("browser-control", "browser: drives a web browser (forms, clicks, navigation)")),
  canvas: always(dangerous("code-execution", "canvas: presents pages and runs JavaScript on a node")),
  code_execution: always(dangerous("code-execution", "code_execution: runs code remotely")),
  // OpenClaw 2026.9.6's code mode: an `exec` cell of JavaScript (the guard sends its tool kind as the name).
  code_mode_exec: always(dangerous("code-execution", "code mode: runs JavaScript")),
  tts: GENERATION("tts"),
  image_generate: GENERATION("image_generate"),
  music_generate: GENERATION("music_generate"),
  video_generate: GENERATION("video_generate"),
};

/** OpenClaw's tool `name` (lower case), or null when it is not one of the tools above. */
export function classifyOpenClawTool(name: string, input: Input, guard: PathGuard): Classification | null {
  const rule = Object.hasOwn(RULES, name) ? RULES[name] : undefined;
  if (rule === undefined) return null;
  if (input?.gatewayUrl !== undefined || input?.gatewayToken !== undefined) {
    return dangerous("gateway-override", `${name} with another gateway URL or token`);
  }
  return rule(input, guard);
}
