/**
 * Permission requests in PostgreSQL (spec "Permission request" resource and states): dangerous tool calls
 * wait here as `pending` until their user approves or rejects them. Every read and write of a user's
 * request is scoped to that user; another user's request looks like a missing one.
 */
import { timestampedId } from "@svc/common";
import type { Database } from "@svc/db";
import {
  type PermissionDecision,
  type PermissionRequest,
  type PermissionStatus,
  type PermissionTier,
  permissionRequests,
} from "@svc/db/schema";
import { and, asc, eq } from "drizzle-orm";

export type { PermissionDecision, PermissionRequest, PermissionStatus, PermissionTier };

export interface NewPermissionRequestInput {
  /** `perm` for REST-created records, `hook` for the pre-tool-use hook's. */
  prefix: "perm" | "hook";
  agentId: string;
  userId: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  tier: PermissionTier;
  reason: string;
  /** Creation time (the id and `timestamp` carry it); default now. */
  now?: Date;
}

/** Records a pending request. */
export async function createPermissionRequest(
  db: Database,
  input: NewPermissionRequestInput,
): Promise<PermissionRequest> {
  const now = input.now ?? new Date();
  const rows = await db
    .insert(permissionRequests)
    .values({
      id: timestampedId(input.prefix, now),
      agentId: input.agentId,
      userId: input.userId,
      toolName: input.toolName,
      toolInput: input.toolInput,
      tier: input.tier,
      reason: input.reason,
      timestamp: now.getTime(),
      status: "pending",
    })
    .returning();
  return rows[0] as PermissionRequest;
}

/** The user's pending requests (optionally of one agent), oldest first. */
export function listPendingPermissions(
  db: Database,
  userId: string,
  agentId?: string,
): Promise<PermissionRequest[]> {
  const conditions = [eq(permissionRequests.userId, userId), eq(permissionRequests.status, "pending")];
  if (agentId !== undefined) conditions.push(eq(permissionRequests.agentId, agentId));
  return db
    .select()
    .from(permissionRequests)
    .where(and(...conditions))
    .orderBy(asc(permissionRequests.timestamp), asc(permissionRequests.id));
}

/**
 * Decides a pending request in one atomic UPDATE: `approve` and `approve_always` → approved, `reject` →
 * rejected. Null when the request is missing, another user's, or already decided (callers answer 404).
 */
export async function decidePermission(
  db: Database,
  input: { userId: string; requestId: string; decision: PermissionDecision },
): Promise<PermissionRequest | null> {
  const rows = await db
    .update(permissionRequests)
    .set({
      status: statusOf(input.decision),
      decision: input.decision,
      decidedAt: new Date(),
    })
    .where(
      and(
        eq(permissionRequests.id, input.requestId),
        eq(permissionRequests.userId, input.userId),
        eq(permissionRequests.status, "pending"),
      ),
    )
    .returning();
  return rows[0] ?? null;
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
