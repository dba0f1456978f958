/**
 * `GET /api/gateway/status`: the health, sessions and cron jobs of the user's newest agent, read from its
 * runtime gateway. The three calls run in parallel; one failing leaves the others' answers in place. A user
 * without an agent (or whose agent has no runtime instance yet) gets the same shape, unreachable, with the
 * reason in `healthDetail.error`, so the dashboard renders one view for every case.
 */
import type { WebContext } from "../infra/context";
import {
  GatewayError,
  type GatewayHealth,
  type RuntimeCronJob,
  type RuntimeSession,
} from "../runtime/gateway-client";
import { agentGatewayClient, newestAgentOf } from "./agent-gateway";

/** Up to 10 sessions and 10 cron jobs are listed. */
export const GATEWAY_STATUS_LIST_LIMIT = 10;

export interface GatewaySessionView {
  sessionKey: string;
  status: string;
  messageCount: number;
  lastActivity: string | null;
}

export interface GatewayCronJobView {
  id: string;
  name: string;
  enabled: boolean;
  schedule: { kind: string; everyMs: number | null };
  lastRun: string | null;
  nextRun: string | null;
}

export interface GatewayStatus {
  health: "healthy" | "unreachable";
  /** `{ok, status}` when `/healthz` answered, `{ok: false, error}` when it did not. */
  healthDetail: { ok: boolean; status?: number; error?: string };
  sessions: { total: number; active: number; list: GatewaySessionView[] };
  cron: { total: number; enabled: number; jobs: GatewayCronJobView[] };
}

const noSessions = (): GatewayStatus["sessions"] => ({ total: 0, active: 0, list: [] });
const noCron = (): GatewayStatus["cron"] => ({ total: 0, enabled: 0, jobs: [] });

function unreachable(error: string): GatewayStatus {
  return {
    health: "unreachable",
    healthDetail: { ok: false, error },
    sessions: noSessions(),
    cron: noCron(),
  };
}

/** Sessions, most recently active first (never-active last), mapped to the platform's names. */
export function summarizeSessions(sessions: RuntimeSession[]): GatewayStatus["sessions"] {
  const at = (s: RuntimeSession) => (s.lastActivityAt ? Date.parse(s.lastActivityAt) || 0 : 0);
  const newestFirst = [...sessions].sort((a, b) => at(b) - at(a));
  return {
    total: sessions.length,
    active: sessions.filter((s) => s.status === "active").length,
    list: newestFirst.slice(0, GATEWAY_STATUS_LIST_LIMIT).map((s) => ({
      sessionKey: s.key,
      status: s.status,
      messageCount: s.messageCount,
      lastActivity: s.lastActivityAt,
    })),
  };
}

/** Cron jobs in the runtime's order, mapped to the platform's names. */
export function summarizeCron(jobs: RuntimeCronJob[]): GatewayStatus["cron"] {
  return {
    total: jobs.length,
    enabled: jobs.filter((j) => j.enabled).length,
    jobs: jobs.slice(0, GATEWAY_STATUS_LIST_LIMIT).map((j) => ({
      id: j.id,
      name: j.name,
      enabled: j.enabled,
      schedule: { kind: j.schedule.kind, everyMs: j.schedule.everyMs },
      lastRun: j.lastRunAt,
      nextRun: j.nextRunAt,
    })),
  };
}

function healthDetailOf(result: PromiseSettledResult<GatewayHealth>): GatewayStatus["healthDetail"] {
  if (result.status === "fulfilled") return { ok: result.value.ok, status: result.value.status };
  return { ok: false, error: (result.reason as GatewayError).label };
}

export async function getGatewayStatus(ctx: WebContext, userId: string): Promise<GatewayStatus> {
  const agent = await newestAgentOf(ctx.db, userId);
  if (!agent) return unreachable("no agent");
  const client = agentGatewayClient(ctx, agent);
  if (!client) return unreachable("no runtime instance");
  const [health, sessions, cron] = await Promise.allSettled([
    client.health(),
    client.listSessions(),
    client.listCronJobs(),
  ]);
  for (const result of [health, sessions, cron]) {
    if (result.status === "fulfilled") continue;
    // Only the gateway's own failures are part of the view; anything else is a defect to report as 500.
    if (!(result.reason instanceof GatewayError)) throw result.reason;
    if (result !== health) {
      ctx.logger.warn(
        { agentId: agent.id, reason: result.reason.label },
        "gateway status: runtime list failed",
      );
    }
  }
  const healthDetail = healthDetailOf(health);
  return {
    health: healthDetail.ok ? "healthy" : "unreachable",
    healthDetail,
    sessions: sessions.status === "fulfilled" ? summarizeSessions(sessions.value) : noSessions(),
    cron: cron.status === "fulfilled" ? summarizeCron(cron.value) : noCron(),
  };
}
