/** Types of the one fake agent runtime (agent-runtime.mjs: plain JS so it also runs as a child process). */
import type { IncomingHttpHeaders } from "node:http";

export interface ChatCompletionMessage {
  role: string;
  content: string;
}

/** One chat-completion call the fake received with a valid token, its body parsed. */
export interface RecordedChatCompletion {
  authorization: string | undefined;
  model: string | undefined;
  messages: ChatCompletionMessage[];
  body: Record<string, unknown>;
}

export interface FakeRuntimeRequest {
  method: string;
  /** The path with its query string. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeRuntimeSession {
  key: string;
  status: string;
  messageCount: number;
  lastActivityAt: string | null;
}

export interface FakeRuntimeCronJob {
  id: string;
  name: string;
  enabled: boolean;
  schedule: { kind: string; everyMs: number | null };
  lastRunAt: string | null;
  nextRunAt: string | null;
  message?: string;
}

export type PersonaDimension = "voice" | "emotion" | "knowledge" | "refusal";

/** One persona evaluation run as the wrapper records it (`<state>/platform/persona.json`). */
export interface FakePersonaRun {
  id: string;
  timestamp: string;
  probeSet: string;
  dimensions: PersonaDimension[];
  scores: Partial<Record<PersonaDimension, number>>;
  overallScore: number;
  driftDetected: boolean;
  /** The mean overall score of the previous runs the drift check compared with (null for the first). */
  baseline: number | null;
}

/** The judge's score (0..1) of one probe's answer. */
export type FakePersonaJudge = (probe: {
  dimension: PersonaDimension;
  prompt: string;
  answer: string;
}) => number;

/** A persona run's answer: the wrapper's (`run` beside the summary) or the summary alone (the new run last of `history`). */
export type FakePersonaRunAnswer = "wrapper" | "spec";

export interface FakeAgentRuntimeOptions {
  /** The gateway token every Bearer route expects (default: `env.OPENCLAW_GATEWAY_TOKEN`). */
  token?: string;
  /**
   * The wrapper admin password (default: `env.WRAPPER_ADMIN_PASSWORD`): with one, the fake answers
   * `GET /api/identity` as the agent's wrapper does, so callers that require the agent's proof reach it.
   */
  adminPassword?: string;
  /** Without any token: let every call through (default: refuse every call). */
  openWithoutToken?: boolean;
  /** The environment the runtime sees (`/whoami`, `/env`, and the default token). */
  env?: Record<string, string | undefined>;
  /** The assistant's reply, fixed or computed from the messages (default: echoes the last message). */
  reply?: string | ((messages: ChatCompletionMessage[]) => string);
  /**
   * Ask this OpenAI-compatible provider for each reply as OpenClaw does (`reply` is not used then): the
   * session's history (by `user`), `stream: true` without `stream_options`, the user's text as a content
   * part, tools; a provider failure is a 200 reply with the error text and zero usage. `apiKey` defaults to
   * the gateway token (OpenClaw's provider key is `${OPENCLAW_GATEWAY_TOKEN}`).
   */
  provider?: { baseUrl: string; model: string; apiKey?: string };
  /** Model named in answers when the request names none (default "fake-agent-model"). */
  model?: string;
  /** Completion ids are `chatcmpl-<idPrefix>-<n>` (default "fake"). */
  idPrefix?: string;
  /** Health checks fail until this long after start (default 0). */
  readyAfterMs?: number;
  /** Answer the least of OpenClaw's gateway RPC on `/` (connect, `platform-guard.status`): a wrapper runs it as OpenClaw. */
  openclawRpc?: boolean;
  /** Cron job ids: `cron_<n>` (default) or `cron_<name>`. */
  cronIds?: "sequential" | "by-name";
  /** Report `nextRunAt` of enabled jobs (default: null). */
  scheduleNextRun?: boolean;
  /** Memories held at start (what the first `/api/memory/reset` deletes). */
  memories?: number;
  /** `/stream` lines and the pause between them (default 5, 50 ms). */
  streamChunks?: number;
  streamIntervalMs?: number;
  /** Also answer the agent wrapper's routes (see the file comment). */
  wrapper?: boolean;
  /**
   * With `wrapper`: scores each probe of a persona evaluation run (the probes' answers are `reply`'s).
   * Without one a run is the wrapper's 503 for an agent without a platform backend.
   */
  judge?: FakePersonaJudge;
  /**
   * With `wrapper`: how a persona run is answered: `wrapper` (default) the summary plus the new run with its
   * probes under `run`, as the wrapper does; `spec` the summary alone, the new run last of `history` (the other
   * shape the web accepts).
   */
  personaRunAnswer?: FakePersonaRunAnswer;
  /** Running as the runtime child process: adds /whoami, /env, /print, /crash. */
  process?: boolean;
  /** Port to listen on (default: any free one). */
  port?: number;
  /** Called with each request as it is recorded (before it is answered). */
  onRequest?: (request: FakeRuntimeRequest) => void;
}

export interface FakeAgentRuntime {
  url: string;
  port: number;
  /** The gateway token; "" = `env.OPENCLAW_GATEWAY_TOKEN`. */
  token: string;
  /** The key of its identity proof; "" = `env.WRAPPER_ADMIN_PASSWORD` (none: `/api/identity` is a 404). */
  adminPassword: string;
  env: Record<string, string | undefined>;
  /** Every HTTP request received, in order. */
  requests: FakeRuntimeRequest[];
  /** Chat-completion calls with a valid token and body, in order. */
  completions: RecordedChatCompletion[];
  /** The Authorization header of each WebSocket upgrade. */
  wsAuthorizations: Array<string | undefined>;
  readyAfterMs: number;
  /** Health checks pass only while running and healthy (and ready). */
  running: boolean;
  healthy: boolean;
  /** Status the health checks answer when up (default 200). */
  healthStatus: number;
  /** When set, every `/api/*` call answers this status. */
  apiFailure: number | null;
  /** When set, every `/api/*` call answers this text with 200 (a broken runtime). */
  apiGarbage: string | null;
  /** Milliseconds to wait before answering anything (chat calls are recorded first). */
  delayMs: number;
  hung: boolean;
  /** While true every connection is dropped without an answer (the wrapper itself is gone). */
  down: boolean;
  /** With `wrapper`: the `state` `/api/status` reports (e.g. "starting", "crashed"); null = from `running`. */
  gatewayState: string | null;
  sessions: FakeRuntimeSession[];
  /** With `provider`: each session's messages as sent to the provider (by session key). */
  histories: Map<string, Array<{ role: string; content: unknown }>>;
  /** Jobs by name. */
  cron: Map<string, FakeRuntimeCronJob>;
  memories: number;
  /** The runtime configuration file (wrapper `/api/config`); null = none yet. */
  config: Record<string, unknown> | null;
  /** With `wrapper`: the persona evaluation runs recorded, oldest first. */
  evaluations: FakePersonaRun[];
  /** With `wrapper`: the persona evaluation's judge; null = none (a run is a 503). */
  judge: FakePersonaJudge | null;
  /** With `wrapper`: the shape of a persona run's answer (see the option). */
  personaRunAnswer: FakePersonaRunAnswer;
  /** Lets a held `/held` answer finish (after `hold()`). */
  release: () => void;
  setReply(reply: NonNullable<FakeAgentRuntimeOptions["reply"]>): void;
  /** Answer every chat call with this status and an OpenAI-style error body; null to succeed again. */
  failWith(status: number | null, message?: string): void;
  setDelay(ms: number): void;
  /** From now on no request gets an answer. */
  hang(): void;
  /** From now on `/held` answers "first\n", then waits for `release()` before "second\n". */
  hold(): void;
  /** From now on chat calls are recorded, then answered only once the returned function is called. */
  holdCompletions(): () => void;
  close(): Promise<void>;
}

export function startFakeAgentRuntime(options?: FakeAgentRuntimeOptions): Promise<FakeAgentRuntime>;

/** Runs the fake as the agent's runtime child process, configured by the environment. */
export function runFakeRuntimeProcess(env?: Record<string, string | undefined>): Promise<FakeAgentRuntime>;
