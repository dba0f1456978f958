import { openGatewayToken } from "@svc/common";
import type { Database } from "@svc/db";
// Type only: the web serializes jobs exactly as the backend's API does, without importing backend code.
import { type PlatformJobJson, toJobJson } from "@svc/db/json";
import { platformJobs, users } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import { userNotFound } from "../accounts/errors";
import type { WebContext } from "../infra/context";
import { withAdvisoryLock } from "../infra/db/advisory-lock";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeAddressRate } from "../infra/ratelimit/service";
import { noAgent } from "../runtime/errors";
import { newestAgentOf } from "../runtime/operations";
import { BackendQueueError, enqueueChatJob } from "./backend-client";
import {
  backendQueueError,
  jobNotFound,
  noGatewayToken,
  noRuntimeInstance,
  workloadBusy,
  workloadLimit,
} from "./errors";

/** Chat workload: a message longer than this many characters takes 2 slots, otherwise 1. */
export const LONG_MESSAGE_CHARS = 800;
/** What a full gate tells the client to wait: chat jobs usually finish within seconds. */
export const WORKLOAD_RETRY_AFTER_SECONDS = 5;
/** What a busy gate (another message of the user's being queued right now) tells the client to wait. */
export const GATE_BUSY_RETRY_AFTER_SECONDS = 1;

export interface QueuedChat {
  success: true;
  queued: true;
  jobId: string;
  status: "queued";
  agentId: string;
  agentName: string;
}

/** Counts a chat request against the per-IP window (CHAT_RATE_LIMIT_PER_MINUTE): 429 beyond. */
export async function limitChatRate(ctx: WebContext, ip: string): Promise<void> {
  const limit = await consumeAddressRate(ctx, "chat", ip, {
    points: ctx.config.CHAT_RATE_LIMIT_PER_MINUTE,
    windowMs: 60_000,
  });
  if (!limit.allowed) {
    throw rateLimited("chat requests", limit.retryAfterSeconds);
  }
}

/** Slots a message takes; characters are code points, as `char_length` counts them. */
export function chatSlotsOf(message: string): number {
  return [...message].length > LONG_MESSAGE_CHARS ? 2 : 1;
}

/**
 * `POST /api/gateway/chat`: finds the user's newest agent (404 without one or without a runtime URL, 503
 * without a usable gateway token), checks the user's workload slots (429, also while another message of the
 * user is being queued) and enqueues a `gateway_chat_completion` job through the backend (502 when it does
 * not accept it).
 */
export async function queueChatMessage(
  ctx: WebContext,
  userId: string,
  message: string,
): Promise<QueuedChat> {
  const [user] = await ctx.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!user) throw userNotFound();
  const agent = await newestAgentOf(ctx.db, user.id);
  if (!agent) throw noAgent();
  if (!agent.url) throw noRuntimeInstance();
  if (!hasUsableGatewayToken(ctx, agent.gatewayTokenEncrypted)) {
    throw noGatewayToken();
  }
  const gatewayUrl = agent.url;
  const slots = chatSlotsOf(message);

  const job = await withUserChatGate(ctx.db, user.id, async (query) => {
    const used = await chatSlotsInUse(query, user.id);
    // A message worth more than all slots may still run alone, or it could never run at all.
    if (used > 0 && used + slots > ctx.config.CHAT_WORKLOAD_SLOTS) {
      throw workloadLimit(WORKLOAD_RETRY_AFTER_SECONDS);
    }
    try {
      return await enqueueChatJob(ctx.config, { user, agentId: agent.id, gatewayUrl, message });
    } catch (err) {
      if (!(err instanceof BackendQueueError)) throw err;
      ctx.logger.warn({ status: err.status, reason: err.message, agentId: agent.id }, "chat enqueue failed");
      throw backendQueueError();
    }
  });
  return {
    success: true,
    queued: true,
    jobId: job.id,
    status: "queued",
    agentId: agent.id,
    agentName: agent.name,
  };
}

/** Whether the agent's gateway token exists and opens with DATA_ENCRYPTION_KEY (the worker will need it). */
function hasUsableGatewayToken(ctx: WebContext, sealed: string | null): boolean {
  const key = ctx.config.DATA_ENCRYPTION_KEY;
  if (!sealed || !key) return false;
  try {
    return openGatewayToken(key, sealed).length > 0;
  } catch {
    return false;
  }
}

type Query = <R>(text: string, values: unknown[]) => Promise<R[]>;

/**
 * Runs `fn` holding the user's chat-gate advisory lock, so that the slot check and the enqueue are one step
 * for that user across every web process. The lock is only tried: while another request of the user holds
 * it (waiting on the backend), this one is refused with 429 at once, so a burst of chats cannot drain the
 * pool.
 */
function withUserChatGate<T>(db: Database, userId: string, fn: (query: Query) => Promise<T>): Promise<T> {
  return withAdvisoryLock(
    db,
    `chat-gate:${userId}`,
    (client) => fn(async (text, values) => (await client.query(text, values)).rows),
    {
      ifBusy: () => workloadBusy(GATE_BUSY_RETRY_AFTER_SECONDS),
    },
  );
}

/** Slots held by the user's chat jobs still queued or running (their message is in `payload.message`). */
async function chatSlotsInUse(query: Query, userId: string): Promise<number> {
  const rows = await query<{ used: number }>(
    `select coalesce(sum(case when char_length(payload->>'message') > $2 then 2 else 1 end), 0)::int as used
       from platform_jobs
      where user_id = $1 and job_type = 'gateway_chat_completion' and status in ('queued', 'running')`,
    [userId, LONG_MESSAGE_CHARS],
  );
  return rows[0]?.used ?? 0;
}

/** `GET /api/jobs/:jobId`: one of the user's own platform jobs; anybody else's, or an unknown id, is 404. */
export async function getUserJob(ctx: WebContext, userId: string, jobId: string): Promise<PlatformJobJson> {
  const [job] = await ctx.db
    .select()
    .from(platformJobs)
    .where(and(eq(platformJobs.id, jobId), eq(platformJobs.userId, userId)))
    .limit(1);
  if (!job) throw jobNotFound();
  return toJobJson(job);
}
