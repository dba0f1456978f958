/**
 * Tests only: a loopback runtime gateway implementing the surface the platform calls through an agent's
 * wrapper URL: `GET /healthz`, and behind `Authorization: Bearer <token>` `GET /api/sessions`,
 * `GET /api/cron`, `PUT /api/cron/:name`, `DELETE /api/cron/:name`.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import type { RuntimeCronJob, RuntimeSession } from "../runtime/gateway-client";

export interface FakeGateway {
  url: string;
  token: string;
  requests: FakeUpstream["requests"];
  sessions: RuntimeSession[];
  /** Jobs by name. */
  cron: Map<string, RuntimeCronJob>;
  /** Status `/healthz` answers (default 200). */
  healthStatus: number;
  /** When set, every `/api/*` call answers this status. */
  apiFailure: number | null;
  /** When set, every `/api/*` call answers this text with 200 (a broken runtime). */
  apiGarbage: string | null;
  /** Milliseconds to wait before answering anything. */
  delayMs: number;
  close(): Promise<void>;
}

export async function startFakeGateway(token = "gateway-token-0123456789abcdef"): Promise<FakeGateway> {
  let nextId = 1;
  const state = {
    sessions: [] as RuntimeSession[],
    cron: new Map<string, RuntimeCronJob>(),
    healthStatus: 200,
    apiFailure: null as number | null,
    apiGarbage: null as string | null,
    delayMs: 0,
  };
  const upstream = await startFakeUpstream(async (req, res, raw) => {
    if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/healthz") {
      return sendJson(res, state.healthStatus, { ok: state.healthStatus === 200 });
    }
    if (!path.startsWith("/api/")) return sendJson(res, 404, { error: "not found" });
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, { error: "unauthorized" });
    if (state.apiFailure !== null) return sendJson(res, state.apiFailure, { error: "failing" });
    if (state.apiGarbage !== null) {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(state.apiGarbage);
      return;
    }
    if (req.method === "GET" && path === "/api/sessions")
      return sendJson(res, 200, { sessions: state.sessions });
    if (req.method === "GET" && path === "/api/cron")
      return sendJson(res, 200, { jobs: [...state.cron.values()] });
    const cron = /^\/api\/cron\/([^/]+)$/.exec(path);
    if (!cron) return sendJson(res, 404, { error: "not found" });
    const name = decodeURIComponent(cron[1]);
    if (req.method === "DELETE") {
      if (!state.cron.delete(name)) return sendJson(res, 404, { error: "no such job" });
      res.writeHead(204);
      res.end();
      return;
    }
    if (req.method !== "PUT") return sendJson(res, 405, { error: "method not allowed" });
    let body: { enabled?: unknown; schedule?: { kind?: unknown; everyMs?: unknown }; message?: unknown };
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, { error: "body is not JSON" });
    }
    const everyMs = body.schedule?.everyMs;
    if (typeof body.enabled !== "boolean" || body.schedule?.kind !== "every" || typeof everyMs !== "number") {
      return sendJson(res, 400, { error: "enabled and schedule {kind: every, everyMs} required" });
    }
    const existing = state.cron.get(name);
    const job: RuntimeCronJob = {
      id: existing?.id ?? `cron_${nextId++}`,
      name,
      enabled: body.enabled,
      schedule: { kind: "every", everyMs },
      lastRunAt: existing?.lastRunAt ?? null,
      nextRunAt: null,
    };
    state.cron.set(name, job);
    return sendJson(res, 200, { job });
  });
  return Object.assign(state, {
    url: upstream.url,
    token,
    requests: upstream.requests,
    close: () => upstream.close(),
  });
}
