// @ts-check
/**
 * The platform's guard for OpenClaw (plugin id `platform-guard`): every tool call of the agent goes through
 * `before_tool_call`, which asks the platform (classify.js) and blocks what the platform does not allow.
 * OpenClaw loads this file without a build step. `register` only registers: OpenClaw also calls it in CLI
 * processes (`openclaw config validate`, `plugins inspect`), so it opens nothing and starts nothing.
 */
import {
  askPlatform,
  DEFAULT_CLASSIFY_TIMEOUT_MS,
  DEFAULT_WAIT_SECONDS,
  denialMessage,
  POLL_GRACE_MS,
} from "./classify.js";

export const PLUGIN_ID = "platform-guard";
/** Keep equal to package.json's version (a test checks). */
export const PLUGIN_VERSION = "1.0.0";
/** Gateway RPC method answering `{loaded: true, id, version}`: proof that the gateway process loaded us. */
export const STATUS_METHOD = "platform-guard.status";

/**
 * OpenClaw's `before_tool_call` event (2026.4.11: `{toolName, params, runId?, toolCallId?}`; later
 * versions add `toolKind` for tools that share a name, e.g. a code-mode `exec` cell of JavaScript).
 * @typedef {object} ToolCallEvent
 * @property {string} toolName
 * @property {string} [toolKind]
 * @property {Record<string, unknown>} [params]
 * @property {string} [runId]
 * @property {string} [toolCallId]
 */

/**
 * Its context (`abortSignal` only from later versions, e.g. 2026.9.6).
 * @typedef {object} ToolCallContext
 * @property {string} [toolName]
 * @property {string} [toolKind]
 * @property {string} [agentId]
 * @property {string} [sessionKey]
 * @property {string} [sessionId]
 * @property {string} [runId]
 * @property {AbortSignal} [abortSignal]
 */

/** @typedef {{block: true, blockReason: string} | undefined} ToolCallResult */
/** @typedef {(event: ToolCallEvent, ctx: ToolCallContext) => Promise<ToolCallResult>} ToolCallHandler */
/** @typedef {{warn: (message: string) => void}} Logger */

/**
 * The part of OpenClaw's plugin API this plugin uses.
 * @typedef {object} PluginApi
 * @property {unknown} pluginConfig `plugins.entries["platform-guard"].config`
 * @property {Logger} [logger]
 * @property {(hook: "before_tool_call", handler: ToolCallHandler, options?: {timeoutMs?: number}) => void} on
 * @property {(method: string, handler: (request: {respond: (ok: boolean, payload?: unknown) => void}) => void,
 *   options?: {scope?: string}) => void} registerGatewayMethod
 */

/**
 * The plugin's configuration, checked (OpenClaw checks it against openclaw.plugin.json's schema too).
 * @typedef {object} GuardConfig
 * @property {string} classifyUrl
 * @property {number} waitSeconds
 * @property {number} [classifyTimeoutMs]
 */

/**
 * @param {unknown} raw
 * @returns {GuardConfig | {error: string}}
 */
export function readGuardConfig(raw) {
  if (typeof raw !== "object" || raw === null) return { error: "the plugin has no configuration" };
  const { classifyUrl, waitSeconds = DEFAULT_WAIT_SECONDS, classifyTimeoutMs } = /** @type {any} */ (raw);
  if (typeof classifyUrl !== "string" || classifyUrl === "") {
    return { error: "the classify URL (classifyUrl) is not set" };
  }
  if (typeof waitSeconds !== "number" || !(waitSeconds >= 0)) {
    return { error: "waitSeconds must be a number of at least 0" };
  }
  if (
    classifyTimeoutMs !== undefined &&
    (typeof classifyTimeoutMs !== "number" || !(classifyTimeoutMs > 0))
  ) {
    return { error: "classifyTimeoutMs must be a positive number" };
  }
  return { classifyUrl, waitSeconds, classifyTimeoutMs };
}

/**
 * How long OpenClaw may await the handler: the classify request, the whole wait, the last poll's slack and
 * a margin. From 2026.9.6 OpenClaw cuts a `before_tool_call` handler after 15 s by default (and then
 * blocks the call), which would end every wait for a person early; 2026.4.11 has no such limit.
 * @param {GuardConfig | {error: string}} config
 */
export function handlerBudgetMs(config) {
  if ("error" in config) return DEFAULT_CLASSIFY_TIMEOUT_MS;
  const classify = config.classifyTimeoutMs ?? DEFAULT_CLASSIFY_TIMEOUT_MS;
  return classify + config.waitSeconds * 1000 + POLL_GRACE_MS + 5_000;
}

/**
 * The `before_tool_call` handler: undefined (allowed) only when the platform allows the call; otherwise
 * `{block: true, blockReason: "permission denied: <why>"}`, for a bad configuration and any error too.
 * @param {unknown} pluginConfig
 * @param {{env?: Record<string, string | undefined>, logger?: Logger}} [deps] default: `process.env`
 * @returns {ToolCallHandler}
 */
export function createToolCallGuard(pluginConfig, deps = {}) {
  const config = readGuardConfig(pluginConfig);
  return async (event, ctx) => {
    let reason;
    try {
      if ("error" in config) {
        reason = `platform-guard is misconfigured: ${config.error}`;
      } else {
        const name = typeof event?.toolName === "string" ? event.toolName : ctx?.toolName;
        // A kind other than the name (2026.9.6: `exec` of kind `code_mode_exec` carries JavaScript in
        // `command`) is classified as that kind, never as the shell tool it shares a name with.
        const kind = event?.toolKind ?? ctx?.toolKind;
        const toolName = typeof kind === "string" && kind !== "" && kind !== name ? kind : name;
        const params = event?.params;
        const verdict = await askPlatform(
          {
            toolName: typeof toolName === "string" ? toolName : "",
            toolInput: typeof params === "object" && params !== null && !Array.isArray(params) ? params : {},
            sessionId: typeof ctx?.sessionKey === "string" ? ctx.sessionKey : undefined,
          },
          {
            classifyUrl: config.classifyUrl,
            // Read per call, never kept or logged: OpenClaw strips it from its tools' environment.
            token: (deps.env ?? process.env).OPENCLAW_GATEWAY_TOKEN,
            waitSeconds: config.waitSeconds,
            classifyTimeoutMs: config.classifyTimeoutMs,
            signal: ctx?.abortSignal,
          },
        );
        if (verdict.allow) return undefined;
        reason = verdict.reason;
      }
    } catch (err) {
      reason = `platform-guard failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    const blockReason = denialMessage(reason);
    deps.logger?.warn(`${PLUGIN_ID}: ${String(event?.toolName)} blocked: ${blockReason}`);
    return { block: true, blockReason };
  };
}

export default {
  id: PLUGIN_ID,
  name: "Platform guard",
  description: "Asks the agent platform before every tool call; blocks what it does not allow.",
  /** @param {PluginApi} api */
  register(api) {
    api.on("before_tool_call", createToolCallGuard(api.pluginConfig, { logger: api.logger }), {
      timeoutMs: handlerBudgetMs(readGuardConfig(api.pluginConfig)),
    });
    // operator.read: without a scope OpenClaw requires operator.admin for a plugin's method.
    api.registerGatewayMethod(
      STATUS_METHOD,
      ({ respond }) => respond(true, { loaded: true, id: PLUGIN_ID, version: PLUGIN_VERSION }),
      { scope: "operator.read" },
    );
  },
};
