#!/usr/bin/env node
/**
 * The development runtime: a small runtime gateway for machines without OpenClaw (`npm start` runs it
 * when `openclaw` is not on PATH). It serves the gateway surface the platform uses on 127.0.0.1 and has
 * chat answered by the platform backend's `/api/ai/chat`. Plain Node 20, no dependencies.
 *
 *   node wrapper/dev-runtime/server.mjs --port <port> [--hook-pre-tool-use <hook script>]
 *
 * With a pre-tool-use hook the AI provider gets tools (bash, read, write) that run in the agent's workspace
 * (`$OPENCLAW_STATE_DIR/workspace`), each only after the hook allows it; without one it gets none.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { createServer } from "node:http";
import { resolve } from "node:path";
import { ChatError, parseChatRequest, runChat, sessionKeyOf } from "./chat.mjs";
import { CronInputError, CronScheduler, checkJobName, parseJobInput } from "./cron.mjs";
import { EvalInputError, evaluationSummary, parseRunRequest, runEvaluation } from "./eval.mjs";
import { StateStore } from "./state.mjs";
import { prepareWorkspace, workspaceOf } from "./tools.mjs";

const DEFAULT_PORT = 18789;
const DEFAULT_MODEL = "openai/gpt-4o-mini";
const MAX_BODY_BYTES = 1024 * 1024;
/** A session with activity this recent is `active`, otherwise `idle`. */
const ACTIVE_WITHIN_MS = 30 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 3000;

const writeLine = (stream, level, msg, extra) =>
  stream.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...extra })}\n`);
const log = {
  info: (msg, extra = {}) => writeLine(process.stdout, "info", msg, extra),
  error: (msg, extra = {}) => writeLine(process.stderr, "error", msg, extra),
};

/** The value of `--<name> <value>` or `--<name>=<value>`. */
function flagFromArgs(argv, name) {
  const i = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (i === -1) return undefined;
  return argv[i].startsWith(`--${name}=`) ? argv[i].slice(name.length + 3) : (argv[i + 1] ?? "");
}

const portText =
  flagFromArgs(process.argv.slice(2), "port") ?? process.env.OPENCLAW_GATEWAY_PORT ?? String(DEFAULT_PORT);
const port = Number(portText);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  log.error("invalid port (--port or OPENCLAW_GATEWAY_PORT)", { port: portText });
  process.exit(2);
}

const hookArg = flagFromArgs(process.argv.slice(2), "hook-pre-tool-use");
if (hookArg === "") {
  log.error("--hook-pre-tool-use needs the path of the hook script");
  process.exit(2);
}
const stateRoot = resolve(process.env.OPENCLAW_STATE_DIR || ".openclaw-dev");
const backendUrl = process.env.PLATFORM_BACKEND_URL?.replace(/\/+$/, "");
const token = process.env.OPENCLAW_GATEWAY_TOKEN ?? "";
const config = {
  token,
  aiChatUrl: process.env.PLATFORM_AI_CHAT_URL || (backendUrl ? `${backendUrl}/api/ai/chat` : null),
  defaultModel: process.env.DEV_RUNTIME_MODEL || DEFAULT_MODEL,
  /** The persona the evaluation judges answers against (eval.mjs has a default). */
  persona: process.env.DEV_RUNTIME_PERSONA || null,
  // Tools only with a hook: nothing runs that the platform has not classified.
  tools: hookArg === undefined ? null : { hookPath: resolve(hookArg), workspace: workspaceOf(stateRoot) },
  log,
};
const stateDir = resolve(stateRoot, "dev-runtime");
const sha256 = (text) => createHash("sha256").update(text).digest();
const tokenDigest = token ? sha256(token) : null;
if (!tokenDigest) log.error("OPENCLAW_GATEWAY_TOKEN is not set: every authenticated route answers 401");
if (!config.aiChatUrl) log.error("PLATFORM_AI_CHAT_URL is not set: chat answers 503");

const store = new StateStore(stateDir, log);
const chat = (input) => runChat(config, store, input);
const scheduler = new CronScheduler(store, chat, log);
let ready = false;
let shuttingDown = false;

/** A client-visible failure, answered as an OpenAI-style error `{error: {message, type, code}}`. */
class HttpFailure extends Error {
  constructor(status, type, message, code = null) {
    super(message);
    this.status = status;
    this.type = type;
    this.code = code;
  }
}

function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

const sendError = (res, failure) =>
  sendJson(res, failure.status, {
    error: { message: failure.message, type: failure.type, code: failure.code },
  });

/** The bearer token matches OPENCLAW_GATEWAY_TOKEN (compared as SHA-256 digests, in constant time). */
function authorized(req) {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
  return Boolean(tokenDigest && match && timingSafeEqual(sha256(match[1]), tokenDigest));
}

/** The JSON body, or undefined when empty; 413 past `MAX_BODY_BYTES`, 400 when it is not JSON. */
function readJson(req) {
  return new Promise((resolvePromise, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) {
        reject(
          new HttpFailure(413, "invalid_request_error", `the request body exceeds ${MAX_BODY_BYTES} bytes`),
        );
        return;
      }
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") return resolvePromise(undefined);
      try {
        resolvePromise(JSON.parse(text));
      } catch {
        reject(new HttpFailure(400, "invalid_request_error", "the request body is not valid JSON"));
      }
    });
  });
}

/** Aborts when the caller goes away before the answer is written. */
function abortOnClose(res) {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

function listSessions(now = Date.now()) {
  const sessions = [...store.sessions.values()]
    .sort((a, b) => (b.lastActivityAt ?? "").localeCompare(a.lastActivityAt ?? ""))
    .map((s) => ({
      key: s.key,
      status: now - Date.parse(s.lastActivityAt) <= ACTIVE_WITHIN_MS ? "active" : "idle",
      messageCount: s.messageCount,
      lastActivityAt: s.lastActivityAt,
    }));
  return { sessions };
}

const cronPath = /^\/api\/cron\/([^/]+)$/;

function jobNameOf(pathname) {
  try {
    return checkJobName(decodeURIComponent(cronPath.exec(pathname)[1]));
  } catch (err) {
    throw new HttpFailure(
      400,
      "invalid_request_error",
      err instanceof CronInputError ? err.message : "bad job name",
    );
  }
}

function parseCron(body) {
  try {
    return parseJobInput(body);
  } catch (err) {
    if (err instanceof CronInputError) throw new HttpFailure(400, "invalid_request_error", err.message);
    throw err;
  }
}

/** Routes: [method, path or pattern, needs the bearer token, handler]. */
const routes = [
  ["GET", "/healthz", false, (_req, res) => sendJson(res, 200, { ok: true })],
  ["GET", "/readyz", false, (_req, res) => sendJson(res, ready ? 200 : 503, { ready })],
  [
    "POST",
    "/v1/chat/completions",
    true,
    async (req, res) => {
      const request = parseChatRequest(await readJson(req));
      const sessionKey = sessionKeyOf(req.headers["x-session-key"], request);
      sendJson(res, 200, await chat({ request, sessionKey, signal: abortOnClose(res) }));
    },
  ],
  ["GET", "/api/sessions", true, (_req, res) => sendJson(res, 200, listSessions())],
  ["GET", "/api/cron", true, (_req, res) => sendJson(res, 200, { jobs: scheduler.list() })],
  [
    "PUT",
    cronPath,
    true,
    async (req, res, url) => {
      const name = jobNameOf(url.pathname);
      const job = scheduler.upsert(name, parseCron(await readJson(req)));
      await store.flush();
      sendJson(res, 200, { job });
    },
  ],
  [
    "DELETE",
    cronPath,
    true,
    async (_req, res, url) => {
      if (!scheduler.remove(jobNameOf(url.pathname))) {
        throw new HttpFailure(404, "not_found_error", "no cron job of that name");
      }
      await store.flush();
      res.writeHead(204).end();
    },
  ],
  ["GET", "/api/eval/character", true, (_req, res) => sendJson(res, 200, evaluationSummary(store))],
  [
    "POST",
    "/api/eval/character/run",
    true,
    async (req, res) => {
      let input;
      try {
        input = parseRunRequest(await readJson(req));
      } catch (err) {
        if (err instanceof EvalInputError) throw new HttpFailure(400, "invalid_request_error", err.message);
        throw err;
      }
      const result = await runEvaluation(config, store, input, abortOnClose(res));
      await store.flush();
      sendJson(res, 200, result);
    },
  ],
  [
    "POST",
    "/api/memory/reset",
    true,
    async (_req, res) => {
      const deleted = store.resetMemory();
      await store.flush();
      sendJson(res, 200, { ok: true, deleted });
    },
  ],
];

async function handle(req, res, url) {
  const matching = routes.filter(([, path]) =>
    typeof path === "string" ? path === url.pathname : path.test(url.pathname),
  );
  if (matching.length === 0) {
    throw new HttpFailure(404, "not_found_error", `no route for ${req.method} ${url.pathname}`);
  }
  const route = matching.find(([method]) => method === req.method);
  if (!route) {
    res.setHeader("allow", matching.map(([method]) => method).join(", "));
    throw new HttpFailure(405, "invalid_request_error", `${req.method} is not allowed on ${url.pathname}`);
  }
  const [, , needsToken, handler] = route;
  if (needsToken && !authorized(req)) {
    throw new HttpFailure(
      401,
      "authentication_error",
      "a valid gateway token is required (Authorization: Bearer)",
    );
  }
  if (needsToken && !ready) throw new HttpFailure(503, "server_error", "the runtime is not ready yet");
  await handler(req, res, url);
}

const server = createServer((req, res) => {
  const started = Date.now();
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  // The path only: a query string may carry anything.
  res.on("finish", () =>
    log.info("request", {
      method: req.method,
      path: url.pathname,
      status: res.statusCode,
      ms: Date.now() - started,
    }),
  );
  handle(req, res, url).catch((err) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpFailure || err instanceof ChatError) {
      if (err.status >= 500) log.error("request failed", { path: url.pathname, error: err.message });
      if (err.status === 413) res.setHeader("connection", "close");
      sendError(res, err);
      return;
    }
    log.error("unhandled error", { path: url.pathname, error: err?.stack ?? String(err) });
    sendError(res, new HttpFailure(500, "server_error", "internal server error"));
  });
});

async function shutdown(signal) {
  if (shuttingDown) return;
  shuttingDown = true;
  ready = false;
  scheduler.stop();
  const closed = new Promise((resolveClosed) => server.close(() => resolveClosed()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(force);
  await store.flush();
  log.info("development runtime stopped", { signal });
  process.exit(0);
}

process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));

server.on("error", (err) => {
  log.error("cannot listen", { port, error: err.message });
  process.exit(1);
});

server.listen(port, "127.0.0.1", async () => {
  log.info("development runtime listening", {
    port,
    stateDir,
    aiChatUrl: config.aiChatUrl,
    tools: config.tools ? { hook: config.tools.hookPath, workspace: config.tools.workspace } : null,
  });
  try {
    await store.load();
  } catch (err) {
    log.error("cannot load the state", { stateDir, error: err.message });
    process.exit(1);
  }
  if (config.tools) {
    try {
      await access(config.tools.hookPath, constants.R_OK);
      config.tools.workspace = await prepareWorkspace(config.tools.workspace);
    } catch (err) {
      log.error("cannot prepare the tools (hook script or workspace)", { error: err.message });
      process.exit(1);
    }
  }
  if (shuttingDown) return;
  scheduler.start();
  ready = true;
  log.info("development runtime ready", { sessions: store.sessions.size, cronJobs: store.cron.size });
});
