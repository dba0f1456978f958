// @ts-check
/**
 * The one fake of an agent's runtime gateway (types in agent-runtime.d.mts). Tests start it in-process with
 * `startFakeAgentRuntime(options)` and turn its knobs; wrapper and hosting tests run this file as the
 * runtime child process (`node agent-runtime.mjs`), configured by the environment (see
 * `runFakeRuntimeProcess`). It serves on loopback:
 * - GET /healthz, GET /readyz: 200 `{ok: true}` / `{ready: true}` once `readyAfterMs` have passed while
 *   `running` and `healthy`, else 503 (`healthStatus` overrides the 200);
 * - POST /v1/chat/completions (Bearer token, else 401): OpenAI-compatible (SSE chunks when `stream: true`);
 *   records each call in `completions`, counts it toward its session (`user` field, else "main") and stores
 *   one memory; `failWith` and `delayMs` make it fail or answer late, `holdCompletions` makes it wait; with
 *   `provider` each turn is asked of an OpenAI-compatible provider as OpenClaw asks it (see `providerTurn`);
 * - GET /api/sessions, GET /api/cron, PUT /api/cron/:name, DELETE /api/cron/:name, POST /api/memory/reset
 *   (all Bearer), from `sessions`, `cron` and `memories`; `apiFailure` / `apiGarbage` break them;
 * - GET /stream: `streamChunks` lines `streamIntervalMs` apart; WebSocket /ws echoes messages;
 * - POST /hang (or `hang()`): from now on no request gets an answer (a wedged gateway);
 * - with `process` (the child process): GET /whoami, GET /env (`?all=1`: the whole environment),
 *   GET /print?text= (stdout without a newline), POST /crash (exit code 3);
 * - with `wrapper` (an agent service as the platform sees it through its wrapper): GET /api/status (its
 *   `state` is `gatewayState` when set), GET/PUT /api/config and POST /api/gateway/stop (Bearer
 *   `env.WRAPPER_ADMIN_PASSWORD`; stop sets `running` false and `gatewayState` "stopped"), the persona
 *   evaluation's GET /api/eval/character and POST /api/eval/character/run in the wrapper's shapes (see
 *   `judge`; wrapper/src/persona/routes.test.ts holds both to the same answers; `personaRunAnswer: "spec"`
 *   answers a run with the summary alone instead), /echo*, /held (see
 *   `hold`), and a `hello <url>` greeting on each WebSocket;
 * - `down`: every connection is dropped without an answer (the wrapper itself is gone);
 * - GET /api/identity?challenge= (with an admin password: `adminPassword`, else `env.WRAPPER_ADMIN_PASSWORD`):
 *   the wrapper's identity proof (common/src/agent-tokens.ts `wrapperIdentityProof`) of 127.0.0.1:<port>,
 *   so the platform's callers, which send a secret only to an agent that proved it, reach the fake.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { WebSocketServer } from "ws";

/**
 * @import { IncomingMessage, ServerResponse } from "node:http"
 * @import { AddressInfo } from "node:net"
 * @import { WebSocket } from "ws"
 * @import {
 *   ChatCompletionMessage,
 *   FakeAgentRuntime,
 *   FakeAgentRuntimeOptions,
 *   FakeRuntimeCronJob,
 *   PersonaDimension,
 * } from "./agent-runtime.d.mts"
 */
/**
 * A JSON value the fake reads without a schema: whatever a caller sent.
 * @typedef {any} Json
 */

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * @param {ServerResponse} res
 * @param {number} status
 * @param {string} message
 * @param {string} type
 */
function openAiError(res, status, message, type) {
  sendJson(res, status, { error: { message, type } });
}

/**
 * @param {string} text
 * @returns {{ ok: true, value: Json } | { ok: false, value?: undefined }}
 */
function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** @param {string} text */
function digest(text) {
  return createHash("sha256").update(text).digest();
}

/** @param {string} text */
function words(text) {
  return text.split(/\s+/).filter(Boolean).length;
}

/**
 * A message's `content` as text: a string, or its text parts joined by newlines (as OpenClaw reads it).
 * @param {Json} content
 * @returns {string}
 */
function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((/** @type {Json} */ part) =>
      part?.type === "text" && typeof part.text === "string" ? part.text : "",
    )
    .filter(Boolean)
    .join("\n");
}

/** The one tool the fake offers its provider (OpenClaw offers its own set: `exec`, `read`, …). */
const FAKE_EXEC_TOOL = {
  type: "function",
  function: {
    name: "exec",
    description: "Run a shell command",
    parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  },
};

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The wrapper's persona evaluation (wrapper/src/persona/): its dimensions, probes per dimension and drift rule. */
/** @type {PersonaDimension[]} */
const DIMENSIONS = ["voice", "emotion", "knowledge", "refusal"];
/** @type {Record<string, number>} */
const PROBES_PER_DIMENSION = { default: 3, quick: 1 };
const DRIFT_THRESHOLD = 0.15;
const DRIFT_WINDOW = 3;
const NO_JUDGE =
  "no platform backend is configured for this agent (PLATFORM_BACKEND_URL is not set): nothing can judge the answers";
/** @param {number} n */
const round = (n) => Math.round(n * 10_000) / 10_000;
/** @param {number[]} values */
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * @param {FakeAgentRuntimeOptions} [options]
 * @returns {Promise<FakeAgentRuntime>}
 */
export async function startFakeAgentRuntime(options = {}) {
  const startedAt = Date.now();
  /** @type {NonNullable<FakeAgentRuntimeOptions["reply"]>} */
  let reply = options.reply ?? ((messages) => `echo: ${messages.at(-1)?.content ?? ""}`);
  /** @type {{ status: number, message: string } | null} */
  let failure = null;
  let nextCronId = 1;
  let completionSequence = 0;
  let held = Promise.resolve();
  let completionsHeld = Promise.resolve();
  const wss = new WebSocketServer({ noServer: true });

  /** @type {FakeAgentRuntime} */
  const runtime = {
    url: "",
    port: 0,
    /** The gateway token; "" = `env.OPENCLAW_GATEWAY_TOKEN`. */
    token: options.token ?? "",
    adminPassword: options.adminPassword ?? "",
    env: options.env ?? {},
    requests: [],
    completions: [],
    wsAuthorizations: [],
    readyAfterMs: options.readyAfterMs ?? 0,
    running: true,
    healthy: true,
    healthStatus: 200,
    apiFailure: null,
    apiGarbage: null,
    delayMs: 0,
    hung: false,
    down: false,
    gatewayState: null,
    sessions: [],
    cron: new Map(),
    memories: options.memories ?? 0,
    histories: new Map(),
    config: null,
    evaluations: [],
    judge: options.judge ?? null,
    personaRunAnswer: options.personaRunAnswer ?? "wrapper",
    release: () => undefined,
    setReply(next) {
      reply = next;
    },
    failWith(status, message = "the agent runtime failed") {
      failure = status === null ? null : { status, message };
    },
    setDelay(ms) {
      runtime.delayMs = ms;
    },
    hang() {
      runtime.hung = true;
    },
    hold() {
      held = new Promise((resolve) => {
        runtime.release = resolve;
      });
    },
    holdCompletions() {
      /** @type {() => void} */
      let release = () => undefined;
      completionsHeld = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    close: () =>
      /** @type {Promise<void>} */ (
        new Promise((resolve) => {
          for (const client of wss.clients) client.terminate();
          server.closeAllConnections();
          server.close(() => resolve());
        })
      ),
  };

  const expectedToken = () => runtime.token || runtime.env.OPENCLAW_GATEWAY_TOKEN || "";

  /**
   * Bearer check against the gateway token, in constant time; without a token only `openWithoutToken` passes.
   * @param {IncomingMessage} req
   */
  function authorized(req) {
    const token = expectedToken();
    if (!token) return options.openWithoutToken === true;
    const match = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "");
    return match !== null && timingSafeEqual(digest(match[1]), digest(token));
  }

  function isUp() {
    return runtime.running && runtime.healthy && Date.now() - startedAt >= runtime.readyAfterMs;
  }

  /** @param {FakeRuntimeCronJob & { updatedAt?: string }} job */
  function cronJobJson(job) {
    const { updatedAt: _updatedAt, message, ...rest } = job;
    return { ...rest, ...(message !== undefined ? { message } : {}) };
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} raw
   */
  async function chatCompletion(req, res, raw) {
    if (!authorized(req)) return openAiError(res, 401, "invalid gateway token", "invalid_api_key");
    const parsed = parseJson(raw);
    if (!parsed.ok || !parsed.value || typeof parsed.value !== "object")
      return openAiError(res, 400, "body is not JSON", "invalid_request_error");
    const body = parsed.value;
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return openAiError(res, 400, "messages must be a non-empty array", "invalid_request_error");
    const model = typeof body.model === "string" ? body.model : undefined;
    runtime.completions.push({
      authorization: req.headers.authorization,
      model,
      messages: body.messages,
      body,
    });
    if (runtime.delayMs > 0) await sleep(runtime.delayMs);
    await completionsHeld;
    if (failure) return openAiError(res, failure.status, failure.message, "server_error");
    const key = typeof body.user === "string" && body.user ? body.user : "main";
    const turn = options.provider ? await providerTurn(options.provider, key, body.messages) : null;
    const content = turn ? turn.content : typeof reply === "function" ? reply(body.messages) : reply;
    let session = runtime.sessions.find((s) => s.key === key);
    if (!session) {
      session = { key, status: "active", messageCount: 0, lastActivityAt: null };
      runtime.sessions.push(session);
    }
    session.messageCount += 2;
    session.lastActivityAt = new Date().toISOString();
    runtime.memories += 1;
    completionSequence += 1;
    const id = `chatcmpl-${options.idPrefix ?? "fake"}-${completionSequence}`;
    const answeredModel = model ?? options.model ?? "fake-agent-model";
    const created = Math.floor(Date.now() / 1000);
    if (body.stream === true) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      /**
       * @param {Record<string, unknown>} delta
       * @param {string | null} finish
       */
      const chunk = (delta, finish) =>
        `data: ${JSON.stringify({
          id,
          object: "chat.completion.chunk",
          created,
          model: answeredModel,
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      res.write(chunk({ role: "assistant", content }, null));
      res.write(chunk({}, "stop"));
      res.end("data: [DONE]\n\n");
      return;
    }
    const promptTokens = turn
      ? turn.usage.prompt_tokens
      : words(body.messages.map((/** @type {Json} */ m) => String(m?.content ?? "")).join(" "));
    const completionTokens = turn ? turn.usage.completion_tokens : words(content);
    sendJson(res, 200, {
      id,
      object: "chat.completion",
      created,
      model: answeredModel,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  }

  /**
   * One chat turn through `provider` the way OpenClaw 2026.4.11 makes it: the session's history, the
   * request's system messages after its own system prompt, the user's text as a content part, its tools,
   * `stream: true` without `stream_options`, the gateway token as key. A failure is not an HTTP error but
   * the reply: `<status> <error.message>` (the OpenAI SDK's words) or OpenClaw's sentence for an
   * unreachable provider, with zero usage; the real runtime first retries a 5xx or 429 for about 20 s.
   */
  /**
   * @param {NonNullable<FakeAgentRuntimeOptions["provider"]>} provider
   * @param {string} key
   * @param {ChatCompletionMessage[]} messages
   * @returns {Promise<{ content: string, usage: { prompt_tokens: number, completion_tokens: number } }>}
   */
  async function providerTurn(provider, key, messages) {
    const history = runtime.histories.get(key) ?? [];
    runtime.histories.set(key, history);
    const system = messages
      .filter((m) => m?.role === "system" || m?.role === "developer")
      .map((m) => textOf(m.content));
    const user = textOf([...messages].reverse().find((m) => m?.role === "user")?.content);
    history.push({ role: "user", content: [{ type: "text", text: user }] });
    const zero = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    let res;
    try {
      res = await fetch(`${provider.baseUrl.replace(/\/$/, "")}/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.apiKey ?? expectedToken()}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          model: provider.model,
          messages: [
            { role: "system", content: ["You are a fake OpenClaw agent.", ...system].join("\n\n") },
            ...history,
          ],
          stream: true,
          store: false,
          max_completion_tokens: 4096,
          tools: [FAKE_EXEC_TOOL],
        }),
      });
    } catch (err) {
      const refused = String(/** @type {Json} */ (err)?.cause?.code ?? "") === "ECONNREFUSED";
      return {
        content: refused
          ? "LLM request failed: connection refused by the provider endpoint."
          : "LLM request failed: network connection error.",
        usage: zero,
      };
    }
    const text = await res.text();
    if (!res.ok) {
      const error = parseJson(text).value?.error;
      const message =
        typeof error?.message === "string"
          ? error.message
          : error
            ? JSON.stringify(error)
            : "status code (no body)";
      return { content: `${res.status} ${message}`, usage: zero };
    }
    let content = "";
    let usage = zero;
    for (const line of text.split("\n")) {
      if (!line.startsWith("data:") || line.includes("[DONE]")) continue;
      const event = parseJson(line.slice(5)).value;
      content += event?.choices?.[0]?.delta?.content ?? "";
      if (event?.usage) usage = event.usage;
    }
    history.push({ role: "assistant", content });
    return { content, usage };
  }

  /**
   * @param {ServerResponse} res
   * @param {string} name
   * @param {string} raw
   */
  function putCron(res, name, raw) {
    const parsed = parseJson(raw);
    const body = parsed.ok ? parsed.value : null;
    if (!body || typeof body !== "object" || Array.isArray(body))
      return sendJson(res, 400, { error: "body must be a JSON object" });
    if (typeof body.enabled !== "boolean") return sendJson(res, 400, { error: "enabled must be a boolean" });
    const schedule = body.schedule;
    if (schedule?.kind !== "every" || !Number.isInteger(schedule.everyMs) || schedule.everyMs <= 0)
      return sendJson(res, 400, { error: "schedule must be {kind: 'every', everyMs: positive integer}" });
    if (body.message !== undefined && typeof body.message !== "string")
      return sendJson(res, 400, { error: "message must be a string" });
    const existing = runtime.cron.get(name);
    const byName = options.cronIds === "by-name";
    const job = {
      id: existing?.id ?? (byName ? `cron_${name}` : `cron_${nextCronId++}`),
      name,
      enabled: body.enabled,
      schedule: { kind: "every", everyMs: schedule.everyMs },
      lastRunAt: existing?.lastRunAt ?? null,
      nextRunAt:
        options.scheduleNextRun && body.enabled
          ? new Date(Date.now() + schedule.everyMs).toISOString()
          : null,
      message: body.message ?? existing?.message,
    };
    runtime.cron.set(name, job);
    sendJson(res, 200, { job: cronJobJson(job) });
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} path
   * @param {string} raw
   */
  function api(req, res, path, raw) {
    if (!authorized(req)) return sendJson(res, 401, { error: "unauthorized" });
    if (runtime.apiFailure !== null) return sendJson(res, runtime.apiFailure, { error: "failing" });
    if (runtime.apiGarbage !== null) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(runtime.apiGarbage);
      return;
    }
    if (req.method === "GET" && path === "/api/sessions")
      return sendJson(res, 200, { sessions: runtime.sessions });
    if (req.method === "GET" && path === "/api/cron")
      return sendJson(res, 200, { jobs: [...runtime.cron.values()].map(cronJobJson) });
    if (req.method === "POST" && path === "/api/memory/reset") {
      const deleted = runtime.memories;
      runtime.memories = 0;
      runtime.sessions.length = 0;
      return sendJson(res, 200, { ok: true, deleted });
    }
    const cron = /^\/api\/cron\/([^/]+)$/.exec(path);
    if (!cron) return sendJson(res, 404, { error: "not found" });
    const name = decodeURIComponent(cron[1]);
    if (req.method === "PUT") return putCron(res, name, raw);
    if (req.method === "DELETE") {
      if (!runtime.cron.delete(name)) return sendJson(res, 404, { error: "cron job not found" });
      res.writeHead(204);
      res.end();
      return;
    }
    sendJson(res, 405, { error: "method not allowed" });
  }

  /** `GET /api/eval/character`: the latest score of each dimension, the latest run's drift, every run. */
  function personaSummary() {
    const scores = Object.fromEntries(DIMENSIONS.map((d) => [d, null]));
    for (const run of runtime.evaluations) Object.assign(scores, run.scores);
    const last = runtime.evaluations.at(-1);
    return {
      scores,
      overallScore: last?.overallScore ?? null,
      driftDetected: last?.driftDetected ?? false,
      history: runtime.evaluations.map(({ baseline: _baseline, ...entry }) => entry),
    };
  }

  /** `POST /api/eval/character/run`, answered and checked as the wrapper does; each probe scored by `judge`. */
  /**
   * @param {ServerResponse} res
   * @param {string} raw
   */
  function runEvaluation(res, raw) {
    const parsed = raw.trim() === "" ? { ok: true, value: {} } : parseJson(raw);
    if (!parsed.ok) return sendJson(res, 400, { ok: false, error: "body is not valid JSON" });
    const input = parsed.value;
    if (typeof input !== "object" || input === null || Array.isArray(input))
      return sendJson(res, 400, { ok: false, error: "the request body must be a JSON object" });
    const { probeSet = "default", dimensions = DIMENSIONS } = input;
    if (!Object.hasOwn(PROBES_PER_DIMENSION, probeSet))
      return sendJson(res, 400, { ok: false, error: "probeSet must be one of default, quick" });
    if (
      !Array.isArray(dimensions) ||
      dimensions.length === 0 ||
      !dimensions.every((d) => DIMENSIONS.includes(d))
    )
      return sendJson(res, 400, {
        ok: false,
        error: `dimensions must be a non-empty list of ${DIMENSIONS.join(", ")}`,
      });
    const judge = runtime.judge;
    if (!judge) return sendJson(res, 503, { ok: false, error: NO_JUDGE });
    const asked = [...new Set(dimensions)];
    const probes = asked.flatMap((dimension) =>
      Array.from({ length: PROBES_PER_DIMENSION[probeSet] }, (_, n) => {
        const prompt = `${dimension} probe ${n + 1}`;
        const answer = typeof reply === "function" ? reply([{ role: "user", content: prompt }]) : reply;
        return { dimension, prompt, answer, score: judge({ dimension, prompt, answer }) };
      }),
    );
    const scores = Object.fromEntries(
      asked.map((d) => [d, round(mean(probes.filter((p) => p.dimension === d).map((p) => p.score)))]),
    );
    const overallScore = round(mean(Object.values(scores)));
    const window = runtime.evaluations.slice(-DRIFT_WINDOW);
    const baseline = window.length > 0 ? mean(window.map((r) => r.overallScore)) : null;
    const now = new Date();
    const run = {
      id: `eval_${now.getTime()}_${randomBytes(5).toString("hex")}`,
      timestamp: now.toISOString(),
      probeSet,
      dimensions: asked,
      scores,
      overallScore,
      driftDetected: baseline !== null && baseline - overallScore > DRIFT_THRESHOLD,
      baseline: baseline === null ? null : round(baseline),
    };
    runtime.evaluations.push(run);
    // "The evaluation results including the new run": the summary, the new run last of `history`; the
    // wrapper adds the run with its probes under `run`.
    if (runtime.personaRunAnswer === "spec") sendJson(res, 200, personaSummary());
    else sendJson(res, 200, { run: { ...run, probes }, ...personaSummary() });
  }

  /**
   * The wrapper's own routes (option `wrapper`); true when it answered.
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} path
   * @param {string} raw
   */
  function wrapperRoute(req, res, path, raw) {
    if (path === "/api/status") {
      if (!runtime.healthy) sendJson(res, 503, { error: "unavailable" });
      else
        sendJson(res, 200, {
          state: runtime.gatewayState ?? (runtime.running ? "running" : "stopped"),
          running: runtime.running,
          configured: true,
        });
      return true;
    }
    const password = runtime.env.WRAPPER_ADMIN_PASSWORD;
    const admin = !password || req.headers.authorization === `Bearer ${password}`;
    if (path === "/api/gateway/stop" && req.method === "POST") {
      if (!admin) sendJson(res, 401, { ok: false, error: "unauthorized" });
      else {
        runtime.running = false;
        runtime.gatewayState = "stopped";
        sendJson(res, 200, { ok: true, message: "gateway stopped" });
      }
      return true;
    }
    if (path === "/api/config") {
      if (!admin) sendJson(res, 401, { ok: false, error: "unauthorized" });
      else if (req.method === "GET") {
        if (!runtime.config) sendJson(res, 404, { ok: false, error: "no configuration file" });
        else sendJson(res, 200, { ok: true, config: runtime.config });
      } else {
        runtime.config = JSON.parse(raw);
        sendJson(res, 200, { ok: true, message: "saved" });
      }
      return true;
    }
    if (path === "/api/eval/character" || path === "/api/eval/character/run") {
      // The wrapper lets the agent's gateway token or an admin through.
      if (!authorized(req) && !(password && admin)) sendJson(res, 401, { ok: false, error: "unauthorized" });
      else if (req.method === "GET" && path === "/api/eval/character") sendJson(res, 200, personaSummary());
      else if (req.method === "POST" && path === "/api/eval/character/run") runEvaluation(res, raw);
      else sendJson(res, 404, { ok: false, error: "not found" });
      return true;
    }
    if (path === "/held") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first\n");
      void held.then(() => res.end("second\n"));
      return true;
    }
    if (path.startsWith("/echo")) {
      sendJson(res, 200, { method: req.method, url: req.url, headers: req.headers, body: raw });
      return true;
    }
    return false;
  }

  /**
   * The wrapper's answer to an identity challenge (see wrapper/src/routes/identity.ts).
   * @param {ServerResponse} res
   * @param {string | null} challenge
   */
  function identity(res, challenge) {
    const password = runtime.adminPassword || runtime.env.WRAPPER_ADMIN_PASSWORD;
    if (!password) return sendJson(res, 404, { ok: false, error: "no admin password" });
    if (!/^[0-9a-f]{32,128}$/.test(challenge ?? ""))
      return sendJson(res, 400, { ok: false, error: "bad challenge" });
    const listen = { host: "127.0.0.1", port: runtime.port };
    const signed = JSON.stringify([
      "agent-platform/wrapper-identity/v1",
      challenge,
      listen.host,
      listen.port,
    ]);
    const proof = createHmac("sha256", password).update(signed).digest("hex");
    sendJson(res, 200, { ok: true, ...listen, proof });
  }

  /**
   * @param {IncomingMessage} req
   * @param {ServerResponse} res
   * @param {string} raw
   */
  async function handle(req, res, raw) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    if (req.method === "GET" && path === "/api/identity")
      return identity(res, url.searchParams.get("challenge"));
    if (req.method === "POST" && path === "/v1/chat/completions") return chatCompletion(req, res, raw);
    if (runtime.delayMs > 0) await sleep(runtime.delayMs);
    if (path === "/healthz" || path === "/readyz") {
      const status = isUp() ? runtime.healthStatus : 503;
      return sendJson(res, status, path === "/healthz" ? { ok: status === 200 } : { ready: status === 200 });
    }
    if (options.wrapper && wrapperRoute(req, res, path, raw)) return;
    if (
      path === "/api/sessions" ||
      path === "/api/cron" ||
      path.startsWith("/api/cron/") ||
      path === "/api/memory/reset"
    )
      return api(req, res, path, raw);
    if (req.method === "GET" && path === "/stream") {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunks = options.streamChunks ?? 5;
      let sent = 0;
      const timer = setInterval(() => {
        sent++;
        res.write(`chunk ${sent}\n`);
        if (sent === chunks) {
          clearInterval(timer);
          res.end();
        }
      }, options.streamIntervalMs ?? 50);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (req.method === "POST" && path === "/hang") {
      sendJson(res, 200, { ok: true });
      runtime.hung = true;
      if (options.process) process.stdout.write("fake runtime hanging\n");
      return;
    }
    if (options.process) {
      if (req.method === "GET" && path === "/whoami")
        return sendJson(res, 200, { token: runtime.env.OPENCLAW_GATEWAY_TOKEN ?? null });
      if (req.method === "GET" && path === "/env") {
        if (url.searchParams.get("all") === "1") return sendJson(res, 200, { ...runtime.env });
        const names = [
          "PORT",
          "OPENCLAW_GATEWAY_PORT",
          "OPENCLAW_GATEWAY_TOKEN",
          "OPENCLAW_STATE_DIR",
          "OPENCLAW_CONFIG_PATH",
        ];
        return sendJson(res, 200, Object.fromEntries(names.map((name) => [name, runtime.env[name] ?? null])));
      }
      if (req.method === "GET" && path === "/print") {
        process.stdout.write(url.searchParams.get("text") ?? "");
        return sendJson(res, 200, { ok: true });
      }
      if (req.method === "POST" && path === "/crash") {
        sendJson(res, 200, { ok: true });
        setTimeout(() => process.exit(3), 10);
        return;
      }
    }
    sendJson(res, 404, { error: "not found", path });
  }

  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const request = { method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body };
      runtime.requests.push(request);
      options.onRequest?.(request);
      if (runtime.down) {
        req.socket.destroy();
        return;
      }
      // A hung gateway accepts connections and never answers.
      if (runtime.hung) return;
      Promise.resolve()
        .then(() => handle(req, res, body.toString("utf8")))
        .catch((err) => {
          if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
          res.end(`fake runtime failed: ${String(err)}`);
        });
    });
  });
  server.on("upgrade", (req, socket, head) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (options.openclawRpc && path === "/" && !runtime.hung && !runtime.down) {
      wss.handleUpgrade(req, socket, head, (ws) => answerOpenClawRpc(ws, expectedToken()));
      return;
    }
    if ((path !== "/ws" && !path.startsWith("/ws/")) || runtime.hung || runtime.down) {
      socket.destroy();
      return;
    }
    runtime.wsAuthorizations.push(req.headers.authorization);
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (options.wrapper) ws.send(`hello ${req.url}`);
      ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
    });
  });
  await /** @type {Promise<void>} */ (
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
    })
  );
  runtime.port = /** @type {AddressInfo} */ (server.address()).port;
  runtime.url = `http://127.0.0.1:${runtime.port}`;
  return runtime;
}

/**
 * The least of OpenClaw's gateway RPC a wrapper needs to report an agent `running` (`openclawRpc`): the
 * `connect.challenge`, a `connect` with the gateway token (the device signature is not checked here: the
 * wrapper's handshake is tested against common/testing/fakes/openclaw-gateway.ts and the real OpenClaw),
 * and the permission plugin's `platform-guard.status`. Any other method is refused as unknown.
 */
/**
 * @param {WebSocket} ws
 * @param {string} token
 */
function answerOpenClawRpc(ws, token) {
  let connected = false;
  ws.send(JSON.stringify({ type: "event", event: "connect.challenge", payload: { nonce: "fake-nonce" } }));
  ws.on("message", (data) => {
    const frame = parseJson(String(data));
    if (!frame.ok || frame.value?.type !== "req") return;
    const { id, method, params } = frame.value;
    /**
     * @param {boolean} ok
     * @param {unknown} [payload]
     * @param {string} [message]
     */
    const answer = (ok, payload, message) =>
      ws.send(
        JSON.stringify({
          type: "res",
          id,
          ok,
          ...(ok ? { payload } : { error: { code: "INVALID_REQUEST", message } }),
        }),
      );
    if (!connected) {
      if (method !== "connect" || params?.auth?.token !== token) {
        answer(false, undefined, "unauthorized");
        ws.close(1008);
        return;
      }
      connected = true;
      answer(true, { type: "hello-ok", protocol: 3 });
    } else if (method === "platform-guard.status") answer(true, { loaded: true, id: "platform-guard" });
    else answer(false, undefined, `unknown method: ${method}`);
  });
}

/**
 * Runs the fake as the agent's runtime process: listens on 127.0.0.1:$OPENCLAW_GATEWAY_PORT with the
 * token $OPENCLAW_GATEWAY_TOKEN and replies `runtime heard: <last user message>`. Knobs:
 * FAKE_RUNTIME_READY_AFTER_MS (default 200), FAKE_RUNTIME_CRASH_AFTER_MS (exit 3 after that long),
 * FAKE_RUNTIME_HANG_AFTER_MS (hang after that long; 0 = from the start). SIGTERM exits 0, unless
 * FAKE_RUNTIME_IGNORE_SIGTERM=1.
 */
/**
 * @param {Record<string, string | undefined>} [env]
 * @returns {Promise<FakeAgentRuntime>}
 */
export async function runFakeRuntimeProcess(env = process.env) {
  const hangAfter = env.FAKE_RUNTIME_HANG_AFTER_MS ? Number(env.FAKE_RUNTIME_HANG_AFTER_MS) : null;
  const runtime = await startFakeAgentRuntime({
    port: Number(env.OPENCLAW_GATEWAY_PORT),
    token: env.OPENCLAW_GATEWAY_TOKEN ?? "",
    env,
    openclawRpc: env.FAKE_OPENCLAW_RPC === "1",
    readyAfterMs: Number(env.FAKE_RUNTIME_READY_AFTER_MS ?? 200),
    process: true,
    model: "fake-runtime-model",
    idPrefix: "runtime",
    cronIds: "by-name",
    scheduleNextRun: true,
    reply: (messages) => {
      const lastUser = [...messages].reverse().find((m) => m?.role === "user");
      return `runtime heard: ${typeof lastUser?.content === "string" ? lastUser.content : ""}`;
    },
  });
  if (hangAfter !== null && hangAfter <= 0) runtime.hang();
  process.on("SIGTERM", () => {
    if (env.FAKE_RUNTIME_IGNORE_SIGTERM === "1") {
      process.stdout.write("fake runtime ignoring SIGTERM\n");
      return;
    }
    process.exit(0);
  });
  if (env.FAKE_RUNTIME_CRASH_AFTER_MS) {
    setTimeout(() => {
      process.stderr.write("fake runtime crashing on purpose\n");
      process.exit(3);
    }, Number(env.FAKE_RUNTIME_CRASH_AFTER_MS));
  }
  if (hangAfter !== null && hangAfter > 0) setTimeout(() => runtime.hang(), hangAfter);
  process.stdout.write(`fake runtime listening on ${runtime.port}\n`);
  process.stderr.write(`fake runtime stderr ready on ${runtime.port}\n`);
  return runtime;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runFakeRuntimeProcess();
}
