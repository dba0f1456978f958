/**
 * Client of an agent's runtime gateway, reached through the agent's wrapper URL (which proxies everything
 * it does not serve itself to the runtime) with the agent's gateway token as Bearer. Surface: `/healthz`,
 * `/api/sessions`, `/api/cron` (GET), `/api/cron/:name` (PUT, DELETE). The URL comes from the agent record
 * the platform wrote at provisioning, not from users; the token goes out only once the agent's wrapper
 * proved it is that agent (`identityKey`). Every failure is a typed GatewayError.
 */
import { type AgentAnswer, AgentCallError, requestAgent } from "@svc/common";
import { z } from "zod";
import { networkErrorLabel } from "../health/network-errors";

/** Health probe timeout 5 s for `/healthz`; the other calls get the same budget. */
export const GATEWAY_TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

const isOk = (res: { status: number }) => res.status >= 200 && res.status <= 299;

export type GatewayErrorKind =
  /** No HTTP answer: `label` says why (`connection refused`, `timeout (5s)`, ...). */
  | "unreachable"
  /** 401 or 403: the gateway token was refused. */
  | "unauthorized"
  | "not_found"
  /** Any other non-2xx status. */
  | "http"
  /** 2xx, but not the JSON the contract describes. */
  | "bad_response";

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  /** The HTTP status, when the gateway answered. */
  readonly status: number | null;
  /** A short normalized description for API answers (`connection refused`, `http 502`, ...). */
  readonly label: string;

  constructor(kind: GatewayErrorKind, label: string, status: number | null = null) {
    super(`runtime gateway: ${label}`);
    this.name = "GatewayError";
    this.kind = kind;
    this.status = status;
    this.label = label;
  }
}

/** A session as the runtime lists it (`GET /api/sessions`). */
export interface RuntimeSession {
  key: string;
  status: string;
  messageCount: number;
  lastActivityAt: string | null;
}

export interface CronSchedule {
  kind: string;
  everyMs: number | null;
}

/** A cron job as the runtime lists it (`GET /api/cron`). */
export interface RuntimeCronJob {
  id: string;
  name: string;
  enabled: boolean;
  schedule: CronSchedule;
  lastRunAt: string | null;
  nextRunAt: string | null;
}

export interface CronJobInput {
  enabled: boolean;
  schedule: { kind: "every"; everyMs: number };
  message?: string;
}

export interface GatewayHealth {
  /** True for a 2xx answer. */
  ok: boolean;
  status: number;
}

const instant = z
  .union([z.string(), z.number(), z.null()])
  .optional()
  .transform((v) =>
    v === undefined || v === null ? null : typeof v === "number" ? new Date(v).toISOString() : v,
  );

const sessionSchema = z.object({
  key: z.string().min(1),
  status: z.string().default("unknown"),
  messageCount: z.number().int().nonnegative().default(0),
  lastActivityAt: instant,
});

const cronJobSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  enabled: z.boolean(),
  schedule: z
    .object({ kind: z.string(), everyMs: z.number().positive().nullable().default(null) })
    .default({ kind: "unknown", everyMs: null }),
  lastRunAt: instant,
  nextRunAt: instant,
});

const sessionsAnswer = z.object({ sessions: z.array(sessionSchema) });
const cronAnswer = z.object({ jobs: z.array(cronJobSchema) });
const cronJobAnswer = z.object({ job: cronJobSchema });

export interface GatewayClientOptions {
  /** The agent's wrapper URL. */
  baseUrl: string;
  /** The agent's gateway token (sent as Bearer; never logged). Null: only `health()` can be called. */
  token: string | null;
  /**
   * The agent's wrapper admin password: the token is sent only on a connection on which the wrapper proved
   * it holds it. Null: the token is never sent (calls that need it fail as unauthorized).
   */
  identityKey: string | null;
  timeoutMs?: number;
}

export interface GatewayClient {
  /** `GET /healthz` (no token): the status, 2xx or not; throws only when nothing answered. */
  health(): Promise<GatewayHealth>;
  listSessions(): Promise<RuntimeSession[]>;
  listCronJobs(): Promise<RuntimeCronJob[]>;
  /** Creates or replaces the job named `name`. */
  putCronJob(name: string, input: CronJobInput): Promise<RuntimeCronJob>;
  /** Removes the job named `name`; false when it did not exist. */
  deleteCronJob(name: string): Promise<boolean>;
}

export function createGatewayClient({
  baseUrl,
  token,
  identityKey,
  timeoutMs = GATEWAY_TIMEOUT_MS,
}: GatewayClientOptions): GatewayClient {
  const base = baseUrl.replace(/\/+$/, "");

  const send = async (
    method: "GET" | "PUT" | "DELETE",
    path: string,
    { body, auth = true }: { body?: unknown; auth?: boolean } = {},
  ): Promise<AgentAnswer> => {
    if (auth && (!token || !identityKey)) throw new GatewayError("unauthorized", "no gateway token");
    try {
      // A redirect is an answer (its status), never followed: the token goes nowhere else.
      return await requestAgent(base, {
        method,
        path,
        token: auth ? token : null,
        identityKey: auth ? (identityKey ?? undefined) : undefined,
        body,
        timeoutMs,
        maxResponseBytes: MAX_ANSWER_BYTES,
        subject: "runtime gateway",
        returnRedirects: true,
      });
    } catch (err) {
      if (err instanceof AgentCallError && err.reason === "too_large")
        throw new GatewayError("bad_response", "answer too large", err.status ?? null);
      throw new GatewayError("unreachable", networkErrorLabel(err, timeoutMs));
    }
  };

  const failFor = (res: AgentAnswer): GatewayError => {
    const label = `http ${res.status}`;
    if (res.status === 401 || res.status === 403) return new GatewayError("unauthorized", label, res.status);
    if (res.status === 404) return new GatewayError("not_found", label, res.status);
    return new GatewayError("http", label, res.status);
  };

  const readAnswer = <S extends z.ZodType>(res: AgentAnswer, schema: S): z.infer<S> => {
    if (!isOk(res)) throw failFor(res);
    let value: unknown;
    try {
      value = JSON.parse(res.text);
    } catch {
      throw new GatewayError("bad_response", "answer is not JSON", res.status);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new GatewayError("bad_response", "unexpected answer", res.status);
    return parsed.data;
  };

  const cronPath = (name: string) => `/api/cron/${encodeURIComponent(name)}`;

  return {
    async health() {
      const res = await send("GET", "/healthz", { auth: false });
      return { ok: isOk(res), status: res.status };
    },
    async listSessions() {
      return readAnswer(await send("GET", "/api/sessions"), sessionsAnswer).sessions;
    },
    async listCronJobs() {
      return readAnswer(await send("GET", "/api/cron"), cronAnswer).jobs;
    },
    async putCronJob(name, input) {
      return readAnswer(await send("PUT", cronPath(name), { body: input }), cronJobAnswer).job;
    },
    async deleteCronJob(name) {
      const res = await send("DELETE", cronPath(name));
      if (res.status === 404) return false;
      if (!isOk(res)) throw failFor(res);
      return true;
    },
  };
}
