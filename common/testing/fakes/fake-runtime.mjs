/**
 * A stand-in for the runtime gateway process, run as a child process by wrapper and hosting tests.
 * Listens on 127.0.0.1:$OPENCLAW_GATEWAY_PORT and implements the gateway HTTP surface the platform uses:
 * - GET /healthz: {ok: true} once FAKE_RUNTIME_READY_AFTER_MS (default 200) have passed, 503 before;
 * - GET /readyz: {ready: true} once ready, 503 {ready: false} before;
 * - POST /v1/chat/completions (Bearer OPENCLAW_GATEWAY_TOKEN, else 401): OpenAI-compatible, replies
 *   `runtime heard: <last user message>` (SSE chunks when `stream: true`); each call counts toward its
 *   session (`user` field, else "main") and stores the user message as one memory;
 * - GET /api/sessions, GET /api/cron, PUT /api/cron/:name, DELETE /api/cron/:name, POST /api/memory/reset
 *   (all Bearer), in memory;
 * - GET /whoami: {token}; GET /env: the runtime variables and PORT (`?all=1`: the whole environment);
 * - GET /stream: 5 chunks 50 ms apart; GET /print?text=: writes text to stdout without a newline;
 * - POST /crash: exit code 3; POST /hang: from now on no request gets an answer (a wedged gateway);
 * - WebSocket /ws echoes messages.
 * Knobs: FAKE_RUNTIME_CRASH_AFTER_MS (exit 3 after that long), FAKE_RUNTIME_HANG_AFTER_MS (hang after that
 * long; 0 = from the start). SIGTERM exits 0, unless FAKE_RUNTIME_IGNORE_SIGTERM=1.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const port = Number(process.env.OPENCLAW_GATEWAY_PORT);
const readyAfterMs = Number(process.env.FAKE_RUNTIME_READY_AFTER_MS ?? 200);
const startedAt = Date.now();
const token = process.env.OPENCLAW_GATEWAY_TOKEN ?? "";

let hung = false;
/** Sessions by key: {messageCount, lastActivityAt}. */
const sessions = new Map();
/** Cron jobs by name. */
const cronJobs = new Map();
let memories = 0;
let completionSequence = 0;

function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function isReady() {
  return Date.now() - startedAt >= readyAfterMs;
}

function digest(text) {
  return createHash("sha256").update(text).digest();
}

/** Bearer check against the gateway token, in constant time; with no token configured nothing passes. */
function authorized(req) {
  const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "");
  if (!match || !token) return false;
  return timingSafeEqual(digest(match[1]), digest(token));
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function openAiError(res, status, message, type) {
  sendJson(res, status, { error: { message, type } });
}

function cronJobJson(job) {
  return {
    id: job.id,
    name: job.name,
    enabled: job.enabled,
    schedule: job.schedule,
    lastRunAt: job.lastRunAt,
    nextRunAt: job.enabled ? new Date(job.updatedAt + job.schedule.everyMs).toISOString() : null,
    ...(job.message !== undefined ? { message: job.message } : {}),
  };
}

async function chatCompletion(req, res) {
  if (!authorized(req)) return openAiError(res, 401, "invalid gateway token", "invalid_api_key");
  const parsed = parseJson(await readBody(req));
  if (!parsed.ok || !parsed.value || typeof parsed.value !== "object")
    return openAiError(res, 400, "body is not JSON", "invalid_request_error");
  const body = parsed.value;
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return openAiError(res, 400, "messages must be a non-empty array", "invalid_request_error");
  const lastUser = [...body.messages].reverse().find((m) => m?.role === "user");
  const heard = typeof lastUser?.content === "string" ? lastUser.content : "";
  const content = `runtime heard: ${heard}`;
  const key = typeof body.user === "string" && body.user ? body.user : "main";
  const session = sessions.get(key) ?? { messageCount: 0, lastActivityAt: null };
  session.messageCount += 2;
  session.lastActivityAt = new Date().toISOString();
  sessions.set(key, session);
  memories += 1;
  completionSequence += 1;
  const id = `chatcmpl-runtime-${completionSequence}`;
  const model = typeof body.model === "string" ? body.model : "fake-runtime-model";
  const created = Math.floor(Date.now() / 1000);
  if (body.stream === true) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (delta, finish) =>
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    res.write(chunk({ role: "assistant", content }, null));
    res.write(chunk({}, "stop"));
    res.end("data: [DONE]\n\n");
    return;
  }
  const promptTokens = body.messages
    .map((m) => String(m?.content ?? ""))
    .join(" ")
    .split(/\s+/)
    .filter(Boolean).length;
  const completionTokens = content.split(/\s+/).filter(Boolean).length;
  sendJson(res, 200, {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  });
}

async function putCron(req, res, name) {
  const parsed = parseJson(await readBody(req));
  const body = parsed.ok ? parsed.value : null;
  if (!body || typeof body !== "object" || Array.isArray(body))
    return sendJson(res, 400, { error: "body must be a JSON object" });
  if (typeof body.enabled !== "boolean") return sendJson(res, 400, { error: "enabled must be a boolean" });
  const schedule = body.schedule;
  if (schedule?.kind !== "every" || !Number.isInteger(schedule.everyMs) || schedule.everyMs <= 0)
    return sendJson(res, 400, { error: "schedule must be {kind: 'every', everyMs: positive integer}" });
  if (body.message !== undefined && typeof body.message !== "string")
    return sendJson(res, 400, { error: "message must be a string" });
  const existing = cronJobs.get(name);
  const job = {
    id: existing?.id ?? `cron_${name}`,
    name,
    enabled: body.enabled,
    schedule: { kind: "every", everyMs: schedule.everyMs },
    lastRunAt: existing?.lastRunAt ?? null,
    updatedAt: Date.now(),
    message: body.message ?? existing?.message,
  };
  cronJobs.set(name, job);
  sendJson(res, 200, { job: cronJobJson(job) });
}

async function handle(req, res) {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  const path = url.pathname;
  if (req.method === "GET" && path === "/healthz") {
    if (isReady()) sendJson(res, 200, { ok: true });
    else sendJson(res, 503, { ok: false });
    return;
  }
  if (req.method === "GET" && path === "/readyz") {
    if (isReady()) sendJson(res, 200, { ready: true });
    else sendJson(res, 503, { ready: false });
    return;
  }
  if (req.method === "POST" && path === "/v1/chat/completions") return chatCompletion(req, res);
  if (
    path === "/api/sessions" ||
    path === "/api/cron" ||
    path.startsWith("/api/cron/") ||
    path === "/api/memory/reset"
  ) {
    if (!authorized(req)) return sendJson(res, 401, { error: "Unauthorized" });
    if (req.method === "GET" && path === "/api/sessions") {
      const list = [...sessions].map(([key, s]) => ({ key, status: "active", ...s }));
      return sendJson(res, 200, { sessions: list });
    }
    if (req.method === "GET" && path === "/api/cron") {
      return sendJson(res, 200, { jobs: [...cronJobs.values()].map(cronJobJson) });
    }
    const cronName = path.startsWith("/api/cron/") ? decodeURIComponent(path.slice("/api/cron/".length)) : "";
    if (req.method === "PUT" && cronName) return putCron(req, res, cronName);
    if (req.method === "DELETE" && cronName) {
      if (!cronJobs.delete(cronName)) return sendJson(res, 404, { error: "cron job not found" });
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method === "POST" && path === "/api/memory/reset") {
      const deleted = memories;
      memories = 0;
      sessions.clear();
      return sendJson(res, 200, { ok: true, deleted });
    }
  }
  if (req.method === "GET" && path === "/whoami") {
    sendJson(res, 200, { token: process.env.OPENCLAW_GATEWAY_TOKEN ?? null });
    return;
  }
  if (req.method === "GET" && path === "/env") {
    if (url.searchParams.get("all") === "1") return sendJson(res, 200, { ...process.env });
    const names = [
      "PORT",
      "OPENCLAW_GATEWAY_PORT",
      "OPENCLAW_GATEWAY_TOKEN",
      "OPENCLAW_STATE_DIR",
      "OPENCLAW_CONFIG_PATH",
    ];
    sendJson(res, 200, Object.fromEntries(names.map((name) => [name, process.env[name] ?? null])));
    return;
  }
  if (req.method === "GET" && path === "/stream") {
    res.writeHead(200, { "content-type": "text/plain" });
    let sent = 0;
    const timer = setInterval(() => {
      sent++;
      res.write(`chunk ${sent}\n`);
      if (sent === 5) {
        clearInterval(timer);
        res.end();
      }
    }, 50);
    res.on("close", () => clearInterval(timer));
    return;
  }
  if (req.method === "GET" && path === "/print") {
    process.stdout.write(url.searchParams.get("text") ?? "");
    sendJson(res, 200, { ok: true });
    return;
  }
  if (req.method === "POST" && path === "/crash") {
    sendJson(res, 200, { ok: true });
    setTimeout(() => process.exit(3), 10);
    return;
  }
  if (req.method === "POST" && path === "/hang") {
    sendJson(res, 200, { ok: true });
    hung = true;
    process.stdout.write("fake runtime hanging\n");
    return;
  }
  sendJson(res, 404, { error: "not found", method: req.method, path });
}

const server = createServer((req, res) => {
  // A hung gateway accepts connections and never answers.
  if (hung) return;
  void handle(req, res);
});

const wss = new WebSocketServer({ noServer: true });
server.on("upgrade", (req, socket, head) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (url.pathname !== "/ws" || hung) {
    socket.destroy();
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
});

process.on("SIGTERM", () => {
  if (process.env.FAKE_RUNTIME_IGNORE_SIGTERM === "1") {
    process.stdout.write("fake runtime ignoring SIGTERM\n");
    return;
  }
  process.exit(0);
});

if (process.env.FAKE_RUNTIME_CRASH_AFTER_MS) {
  setTimeout(() => {
    process.stderr.write("fake runtime crashing on purpose\n");
    process.exit(3);
  }, Number(process.env.FAKE_RUNTIME_CRASH_AFTER_MS));
}
if (process.env.FAKE_RUNTIME_HANG_AFTER_MS) {
  const hangAfter = Number(process.env.FAKE_RUNTIME_HANG_AFTER_MS);
  if (hangAfter <= 0) hung = true;
  else
    setTimeout(() => {
      hung = true;
    }, hangAfter);
}

server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`fake runtime listening on ${port}\n`);
  process.stderr.write(`fake runtime stderr ready on ${port}\n`);
});
