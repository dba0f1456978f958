/**
 * Heartbeat settings of one of the user's agents: the runtime gateway's cron job named
 * `heartbeat` is the source of truth; when the gateway cannot be used (no runtime instance, no token,
 * unreachable, refusing) the `heartbeat_settings` row stands in. Writes that reach the gateway are also
 * mirrored to the row, so the fallback shows the last setting rather than a stale one.
 */
import { heartbeatSettings } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { requireUserAgent } from "../agents/service";
import { agentGatewayClient } from "../health/agent-gateway";
import type { WebContext } from "../infra/context";
import { type GatewayClient, GatewayError, type RuntimeCronJob } from "../runtime/gateway-client";
import { frequencyToMs, type HeartbeatBody, msToFrequency } from "./inputs";

export const HEARTBEAT_JOB_NAME = "heartbeat";
/** What the table's defaults say when an agent has no row yet. */
export const DEFAULT_HEARTBEAT = { enabled: true, frequency: "30m" } as const;

export interface GatewayHeartbeat {
  source: "gateway";
  enabled: boolean;
  /** Null while the gateway has no heartbeat job (or its interval is not whole minutes). */
  frequency: string | null;
  job: RuntimeCronJob | null;
}

export interface DbHeartbeat {
  source: "db";
  agentId: string;
  enabled: boolean;
  frequency: string;
}

export type HeartbeatSettings = GatewayHeartbeat | DbHeartbeat;

export interface HeartbeatDeletion {
  ok: true;
  source: "gateway" | "db";
  /** Whether there was a heartbeat to delete. */
  deleted: boolean;
}

function fromJob(job: RuntimeCronJob | null): GatewayHeartbeat {
  return {
    source: "gateway",
    enabled: job?.enabled ?? false,
    frequency: job ? msToFrequency(job.schedule.everyMs) : null,
    job,
  };
}

/**
 * Runs `viaGateway` on the agent's gateway; null (use the database) when the agent has no runtime instance
 * or the gateway fails. Failures other than the gateway's own propagate.
 */
async function tryGateway<T>(
  ctx: WebContext,
  agent: { id: string },
  client: GatewayClient | null,
  viaGateway: (client: GatewayClient) => Promise<T>,
): Promise<T | null> {
  if (!client) return null;
  try {
    return await viaGateway(client);
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    ctx.logger.warn(
      { agentId: agent.id, reason: err.label },
      "heartbeat: gateway unavailable, using database",
    );
    return null;
  }
}

async function readRow(ctx: WebContext, agentId: string): Promise<DbHeartbeat> {
  const [row] = await ctx.db
    .select()
    .from(heartbeatSettings)
    .where(eq(heartbeatSettings.agentId, agentId))
    .limit(1);
  return {
    source: "db",
    agentId,
    enabled: row?.enabled ?? DEFAULT_HEARTBEAT.enabled,
    frequency: row?.frequency ?? DEFAULT_HEARTBEAT.frequency,
  };
}

async function writeRow(ctx: WebContext, agentId: string, settings: HeartbeatBody): Promise<DbHeartbeat> {
  const values = { enabled: settings.enabled, frequency: settings.frequency, updatedAt: ctx.clock.now() };
  await ctx.db
    .insert(heartbeatSettings)
    .values({ agentId, ...values })
    .onConflictDoUpdate({ target: heartbeatSettings.agentId, set: values });
  return { source: "db", agentId, ...settings };
}

/** `GET /api/heartbeat?agentId=`: the gateway's heartbeat job, else the database row (or its defaults). */
export async function getHeartbeat(
  ctx: WebContext,
  userId: string,
  agentId: string,
): Promise<HeartbeatSettings> {
  const agent = await requireUserAgent(ctx, userId, agentId);
  const fromGateway = await tryGateway(ctx, agent, agentGatewayClient(ctx, agent), async (client) => {
    const jobs = await client.listCronJobs();
    return fromJob(jobs.find((j) => j.name === HEARTBEAT_JOB_NAME) ?? null);
  });
  return fromGateway ?? readRow(ctx, agent.id);
}

/** `PUT /api/heartbeat?agentId=` `{enabled, frequency}`: to the gateway (mirrored to the row), else the row. */
export async function updateHeartbeat(
  ctx: WebContext,
  userId: string,
  agentId: string,
  settings: HeartbeatBody,
): Promise<HeartbeatSettings> {
  const agent = await requireUserAgent(ctx, userId, agentId);
  const everyMs = frequencyToMs(settings.frequency) as number;
  const fromGateway = await tryGateway(ctx, agent, agentGatewayClient(ctx, agent), async (client) =>
    fromJob(
      await client.putCronJob(HEARTBEAT_JOB_NAME, {
        enabled: settings.enabled,
        schedule: { kind: "every", everyMs },
      }),
    ),
  );
  const row = await writeRow(ctx, agent.id, settings);
  return fromGateway ?? row;
}

/** `DELETE /api/heartbeat?agentId=`: removes the gateway job (and the row), else the row. */
export async function deleteHeartbeat(
  ctx: WebContext,
  userId: string,
  agentId: string,
): Promise<HeartbeatDeletion> {
  const agent = await requireUserAgent(ctx, userId, agentId);
  const fromGateway = await tryGateway(ctx, agent, agentGatewayClient(ctx, agent), (client) =>
    client.deleteCronJob(HEARTBEAT_JOB_NAME),
  );
  const removed = await ctx.db
    .delete(heartbeatSettings)
    .where(eq(heartbeatSettings.agentId, agent.id))
    .returning({ agentId: heartbeatSettings.agentId });
  if (fromGateway !== null) return { ok: true, source: "gateway", deleted: fromGateway };
  return { ok: true, source: "db", deleted: removed.length > 0 };
}
