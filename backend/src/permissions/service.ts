/**
 * Permission behaviour shared by the REST routes, the pre-tool-use hook routes and the WebSocket:
 * classifying a tool call (dangerous ones are queued and announced) and deciding a queued one (the decision
 * is announced on the bus, which wakes WebSocket sessions and hook long-polls in every process).
 */
import { HttpError } from "@svc/common";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import type { PermissionBus, PermissionEvent } from "./bus";
import { classifyToolCall, type Tier } from "./classifier/index";
import {
  createPermissionRequest,
  decidePermission,
  type PermissionDecision,
  type PermissionRequest,
  statusOf,
} from "./store";

export interface PermissionServiceDeps {
  db: Database;
  bus: Pick<PermissionBus, "publish">;
  /** Where a failed announcement is reported (the stored state is already final then). */
  logger?: Logger;
}

export interface ClassifyAnswer {
  allow: boolean;
  tier: Tier;
  reason: string;
  /** Only for the dangerous tier: the pending request to wait on. */
  requestId?: string;
}

export interface ClassifyInput {
  prefix: "perm" | "hook";
  agentId: string;
  userId: string;
  toolName: string;
  toolInput: Record<string, unknown>;
}

/**
 * Classifies a tool call (spec "Permission request" states): safe → allowed, no record; destructive →
 * blocked, no record; dangerous → a pending request, announced as `permission_request`, not allowed yet.
 */
export async function classifyAndQueue(
  deps: PermissionServiceDeps,
  input: ClassifyInput,
): Promise<ClassifyAnswer> {
  const { tier, reason } = classifyToolCall(input.toolName, input.toolInput);
  if (tier !== "dangerous") return { allow: tier === "safe", tier, reason };
  const request = await createPermissionRequest(deps.db, { ...input, tier, reason });
  await announce(deps, requestEvent(request));
  return { allow: false, tier, reason, requestId: request.id };
}

export interface DecisionAnswer {
  success: true;
  requestId: string;
  decision: PermissionDecision;
  tier: Tier;
}

/**
 * The REST (and WebSocket) decision: decides the user's pending request and announces it. 404 when the
 * request is missing, another user's, or already decided.
 */
export async function decideAndPublish(
  deps: PermissionServiceDeps,
  input: { userId: string; requestId: string; decision: PermissionDecision },
): Promise<DecisionAnswer> {
  const request = await decidePermission(deps.db, input);
  if (!request) throw new HttpError(404, "permission_not_found", "permission request not found");
  await announce(deps, {
    type: "decision",
    userId: request.userId,
    requestId: request.id,
    decision: input.decision,
    status: statusOf(input.decision),
    timestamp: Date.now(),
  });
  return { success: true, requestId: request.id, decision: input.decision, tier: request.tier };
}

/** The `permission_request` event of a queued request (`command`: the tool's command, else its name). */
export function requestEvent(request: PermissionRequest): PermissionEvent {
  const command = request.toolInput.command;
  return {
    type: "permission_request",
    userId: request.userId,
    request: {
      id: request.id,
      command: typeof command === "string" ? command : request.toolName,
      tier: request.tier,
      reason: request.reason,
      agentId: request.agentId,
    },
  };
}

/**
 * The stored state is what counts: a failed NOTIFY is logged, not thrown, so the caller is not told that a
 * recorded request or decision failed (a retry would then 404). Readers fall back to the database.
 */
async function announce(deps: PermissionServiceDeps, event: PermissionEvent): Promise<void> {
  try {
    await deps.bus.publish(event);
  } catch (err) {
    deps.logger?.error({ err, type: event.type }, "permission event could not be published");
  }
}
