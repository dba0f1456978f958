import { type Clock, systemClock } from "@svc/common";
import { type Request, type RequestHandler, Router } from "express";
import { badRequest, failed } from "../http/errors";
import type { FfmpegInfo } from "../runtime/ffmpeg";
import type { LogEntry } from "../runtime/logs";
import type { GatewayState, Supervisor } from "../runtime/supervisor";
import { openSse } from "../sse";

export const DEFAULT_LOG_LINES = 100;
export const MAX_LOG_LINES = 500;
export const LOG_STREAM_HISTORY = 50;

export interface RuntimeRoutesOptions {
  supervisor: Supervisor;
  /** Middleware that lets only admins through (answers 401 otherwise). */
  requireAdmin: RequestHandler;
  /** Whether the request carries admin credentials (decides if status shows the gateway token). */
  isAdmin: (req: Request) => boolean;
  ffmpeg: FfmpegInfo;
  /** The AI provider named in the runtime configuration, or null. */
  aiProvider: () => string | null;
  /**
   * Whether the permission guard is proven: `verified` (OpenClaw with the platform's plugin, checked before
   * `running`), `unverified` (an operator's own runtime command: the wrapper cannot check it).
   */
  permissionHook: "verified" | "unverified";
  /** SSE keep-alive interval (default 15 s). */
  ssePingMs?: number;
  /** Stamps the status answer's `ts` (default: the system clock). */
  clock?: Clock;
}

/** `lines` of GET /api/logs: default 100, clamped to 500; null when it is not a positive integer. */
export function parseLogLines(value: unknown): number | null {
  if (value === undefined) return DEFAULT_LOG_LINES;
  if (typeof value !== "string" || !/^\d+$/.test(value.trim())) return null;
  const lines = Number(value.trim());
  if (lines < 1) return null;
  return Math.min(lines, MAX_LOG_LINES);
}

/** Status, logs, state events, restart and stop of the runtime gateway. */
export function runtimeRoutes(options: RuntimeRoutesOptions): Router {
  const { supervisor, requireAdmin, isAdmin, ffmpeg, aiProvider, permissionHook } = options;
  const router = Router();

  router.get("/api/status", (req, res) => {
    const state = supervisor.state;
    res.json({
      state,
      running: state === "running",
      configured: true,
      uptime: supervisor.uptimeSeconds(),
      terminalSessions: 0,
      gatewayToken: isAdmin(req) ? supervisor.gatewayToken : null,
      aiProvider: aiProvider(),
      runtime: { ffmpeg: { available: ffmpeg.available, version: ffmpeg.version } },
      permissionHook,
      // Why the runtime last failed to start or run (e.g. the plugin did not load); null while it runs.
      reason: supervisor.lastError,
      ts: (options.clock ?? systemClock).now().toISOString(),
    });
  });

  router.get("/api/logs", requireAdmin, (req, res) => {
    const lines = parseLogLines(req.query.lines);
    if (lines === null) throw badRequest(`lines must be a whole number from 1 to ${MAX_LOG_LINES}`);
    res.json({ logs: supervisor.logs.tail(lines) });
  });

  router.get("/api/logs/stream", requireAdmin, (req, res) => {
    let unsubscribe: () => void = () => undefined;
    const client = openSse(req, res, { pingMs: options.ssePingMs, onClose: () => unsubscribe() });
    for (const entry of supervisor.logs.tail(LOG_STREAM_HISTORY)) client.send(entry);
    if (!client.closed) unsubscribe = supervisor.logs.subscribe((entry: LogEntry) => client.send(entry));
  });

  router.get("/api/events", requireAdmin, (req, res) => {
    const onState = (state: GatewayState): void => {
      client.send({ state });
    };
    const client = openSse(req, res, {
      pingMs: options.ssePingMs,
      onClose: () => supervisor.off("state", onState),
    });
    client.send({ state: supervisor.state });
    if (!client.closed) supervisor.on("state", onState);
  });

  router.post("/api/gateway/restart", requireAdmin, async (_req, res) => {
    try {
      await supervisor.restart();
    } catch (error) {
      throw failed(`restart failed: ${errorMessage(error)}`);
    }
    res.json({ ok: true, message: "gateway restarting" });
  });

  router.post("/api/gateway/stop", requireAdmin, async (_req, res) => {
    try {
      await supervisor.stop();
    } catch (error) {
      throw failed(`stop failed: ${errorMessage(error)}`);
    }
    res.json({ ok: true, message: "gateway stopped" });
  });

  return router;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
