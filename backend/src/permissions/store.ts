/**
 * Permission requests in PostgreSQL: dangerous tool calls wait here as `pending` until their user decides.
 * Every read and write is scoped to the user; another user's request looks like a missing one. Expiry (issue
 * #12) needs no column: a pending request whose `timestamp` is at or before now −
 * PERMISSION_PENDING_TTL_SECONDS is expired — not listed, not decidable, a denial to the hook. When the agent
 * next asks, its expired requests are swept to `rejected` with no decision, so pending rows stay few and the
 * per-agent count cheap.
 */
import { systemClock, timestampedId } from "@svc/common";
import type { Database } from "@svc/db";
import {
  type PermissionDecision,
  type PermissionRequest,
  type PermissionStatus,
  type PermissionTier,
  permissionRequests,
} from "@svc/db/schema";
import { and, asc, count, eq, gt, lte, type SQL, sql } from "drizzle-orm";

export type { PermissionDecision, PermissionRequest, PermissionStatus, PermissionTier };

export interface NewPermissionRequestInput
  extends Pick<PermissionJson, "agentId" | "userId" | "toolName" | "toolInput" | "tier" | "reason"> {
  /** `perm` for REST-created records, `hook` for the pre-tool-use hook's. */
  prefix: "perm" | "hook";
  /** Creation time (the id and `timestamp` carry it); default now. */
  now?: Date;
}

/** Records a pending request (no cap: see queuePermissionRequest). */
export async function createPermissionRequest(
  db: Database,
  input: NewPermissionRequestInput,
): Promise<PermissionRequest> {
  const rows = await db.insert(permissionRequests).values(newRequestRow(input)).returning();
  return rows[0] as PermissionRequest;
}

function newRequestRow(input: NewPermissionRequestInput) {
  const now = input.now ?? systemClock.now();
  return {
    id: timestampedId(input.prefix, now),
    agentId: input.agentId,
    userId: input.userId,
    toolName: input.toolName,
    toolInput: input.toolInput,
    tier: input.tier,
    reason: input.reason,
    timestamp: now.getTime(),
    status: "pending" as const,
  };
}

/** Advisory-lock class of the per-agent pending cap (the other key is `hashtext(agentId)`). */
const PENDING_CAP_LOCK_CLASS = 0x5045524d;

/**
 * Records a pending request unless its agent already has `maxPending` live (unexpired) pending ones; null
 * then, and nothing is written. The agent's expired requests are swept first. One transaction holding an
 * advisory lock per agent, so concurrent calls never pass the cap together.
 */
export async function queuePermissionRequest(
  db: Database,
  input: NewPermissionRequestInput & { now: Date },
  limits: { cutoffMs: number; maxPending: number },
): Promise<PermissionRequest | null> {
  const agentsPending = and(
    eq(permissionRequests.userId, input.userId),
    eq(permissionRequests.agentId, input.agentId),
    eq(permissionRequests.status, "pending"),
  );
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(${PENDING_CAP_LOCK_CLASS}::int, hashtext(${input.agentId}))`,
    );
    await tx
      .update(permissionRequests)
      .set({ status: "rejected", decidedAt: input.now })
      .where(and(agentsPending, lte(permissionRequests.timestamp, limits.cutoffMs)));
    const [{ pending }] = await tx.select({ pending: count() }).from(permissionRequests).where(agentsPending);
    if (pending >= limits.maxPending) return null;
    const rows = await tx.insert(permissionRequests).values(newRequestRow(input)).returning();
    return rows[0] as PermissionRequest;
  });
}

export interface ListPendingOptions {
  agentId?: string;
  /** Requests at or before this Unix ms are expired and left out (default: none are). */
  cutoffMs?: number;
  /** Page size (default: everything). */
  limit?: number;
  /** Only requests after this one in the list's order (the previous page's last). */
  after?: { timestamp: number; id: string };
}

/** The user's live pending requests (optionally of one agent), oldest first. */
export function listPendingPermissions(
  db: Database,
  userId: string,
  options: ListPendingOptions = {},
): Promise<PermissionRequest[]> {
  const conditions: SQL[] = [eq(permissionRequests.userId, userId), eq(permissionRequests.status, "pending")];
  if (options.agentId !== undefined) conditions.push(eq(permissionRequests.agentId, options.agentId));
  if (options.cutoffMs !== undefined) conditions.push(gt(permissionRequests.timestamp, options.cutoffMs));
  if (options.after !== undefined) {
    conditions.push(
      sql`(${permissionRequests.timestamp}, ${permissionRequests.id}) > (${options.after.timestamp}, ${options.after.id})`,
    );
  }
  const query = db
    .select()
    .from(permissionRequests)
    .where(and(...conditions))
    .orderBy(asc(permissionRequests.timestamp), asc(permissionRequests.id));
  return options.limit === undefined ? query : query.limit(options.limit);
}

/**
 * Decides a pending request in one atomic UPDATE: `approve` and `approve_always` → approved, `reject` →
 * rejected. Null when the request is missing, another user's, already decided, or expired (made at or
 * before `cutoffMs`, when given): callers answer 404.
 */
export async function decidePermission(
  db: Database,
  input: {
    userId: string;
    requestId: string;
    decision: PermissionDecision;
    /** When the decision is made (default now). */
    now?: Date;
    cutoffMs?: number;
  },
): Promise<PermissionRequest | null> {
  const conditions: SQL[] = [
    eq(permissionRequests.id, input.requestId),
    eq(permissionRequests.userId, input.userId),
    eq(permissionRequests.status, "pending"),
  ];
  if (input.cutoffMs !== undefined) conditions.push(gt(permissionRequests.timestamp, input.cutoffMs));
  const rows = await db
    .update(permissionRequests)
    .set({
      status: statusOf(input.decision),
      decision: input.decision,
      decidedAt: input.now ?? systemClock.now(),
    })
    .where(and(...conditions))
    .returning();
  return rows[0] ?? null;
}

/** What the agent's hook is told: the stored status, or `expired` (still pending past the cutoff, or swept). */
export type HookStatus = PermissionStatus | "expired";

export function hookStatusOf(request: PermissionRequest, cutoffMs: number): HookStatus {
  if (request.status === "pending") return request.timestamp > cutoffMs ? "pending" : "expired";
  if (request.status === "rejected" && request.decision === null) return "expired";
  return request.status;
}

/** The request `requestId` when it was made by `agentId` (the hook's decision poll); null otherwise. */
export async function findAgentPermission(
  db: Database,
  agentId: string,
  requestId: string,
): Promise<PermissionRequest | null> {
  const rows = await db
    .select()
    .from(permissionRequests)
    .where(and(eq(permissionRequests.id, requestId), eq(permissionRequests.agentId, agentId)))
    .limit(1);
  return rows[0] ?? null;
}

/** The state a decision moves a pending request to (`approve_always` behaves as `approve`). */
export function statusOf(decision: PermissionDecision): "approved" | "rejected" {
  return decision === "reject" ? "rejected" : "approved";
}

export interface PermissionJson {
  id: string;
  agentId: string;
  userId: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  tier: PermissionTier;
  reason: string;
  /** Unix ms. */
  timestamp: number;
  status: PermissionStatus;
  decision: PermissionDecision | null;
  /** ISO 8601, null while pending. */
  decidedAt: string | null;
}

/** The API shape of a request. */
export function permissionJson(request: PermissionRequest): PermissionJson {
  return {
    id: request.id,
    agentId: request.agentId,
    userId: request.userId,
    toolName: request.toolName,
    toolInput: request.toolInput,
    tier: request.tier,
    reason: request.reason,
    timestamp: request.timestamp,
    status: request.status,
    decision: request.decision,
    decidedAt: request.decidedAt ? request.decidedAt.toISOString() : null,
  };
}
