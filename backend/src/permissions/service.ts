/**
 * Permission behaviour shared by the REST routes, the pre-tool-use hook routes and the WebSocket:
 * classifying a tool call (dangerous ones are queued and announced) and deciding a queued one (the decision
 * is announced on the bus, which wakes WebSocket sessions and hook long-polls in every process).
 */

import { type Clock, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import type { BackendConfig } from "../config";
import type { PermissionBus, PermissionEvent } from "./bus";
import {
  classifyToolCall,
  containerAgentWorkspace,
  DEFAULT_PATH_GUARD,
  localAgentWorkspace,
  type PathGuard,
  pathGuard,
  type Tier,
} from "./classifier/index";
import { permissionNotFound } from "./errors";
import { countPermissionRequest } from "./metrics";
import {
  decidePermission,
  type PermissionDecision,
  type PermissionRequest,
  queuePermissionRequest,
  statusOf,
} from "./store";

/** The hook waits up to 300 s (PERMISSION_WAIT_SECONDS); a request outlives that by a margin. */
export const DEFAULT_PENDING_TTL_SECONDS = 330;
/** Live pending requests one agent may have; the next dangerous call is refused without a record. */
export const MAX_PENDING_PER_AGENT = 100;

/** How the permission services behave, from the backend's configuration. */
export interface PermissionPolicy {
  /** A pending request expires this long after its `timestamp`. */
  pendingTtlMs: number;
  maxPendingPerAgent: number;
  /**
   * The classifier's view of one agent's calls: the platform's protected paths and the agent's workspace
   * (where its commands run, what it may read and write).
   */
  guardFor(agentId: string): PathGuard;
}

export type PermissionPolicyConfig = Partial<
  Pick<BackendConfig, "PERMISSION_PENDING_TTL_SECONDS" | "LOCAL_AGENTS_DIR" | "HOSTING_PROVIDER">
>;

export function permissionPolicy(config: PermissionPolicyConfig = {}): PermissionPolicy {
  return {
    pendingTtlMs: (config.PERMISSION_PENDING_TTL_SECONDS ?? DEFAULT_PENDING_TTL_SECONDS) * 1000,
    maxPendingPerAgent: MAX_PENDING_PER_AGENT,
    guardFor: agentGuards(config),
  };
}

/** Agent ids as the local driver accepts them (hosting/local-store.ts): no way out of the agents directory. */
const AGENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Guards kept per agent (the hook asks before every tool call); the cache restarts when full. */
const MAX_CACHED_GUARDS = 1024;

/**
 * Where an agent works, by hosting driver (classifier/workspace.ts). Local: its directory in
 * LOCAL_AGENTS_DIR (the agents directory itself protected: the other agents live there). Docker and Railway:
 * the agent image's layout, the same for every agent (its container is its own).
 */
function agentGuards(config: PermissionPolicyConfig): (agentId: string) => PathGuard {
  const agentsDir = config.LOCAL_AGENTS_DIR;
  if (agentsDir === undefined || (config.HOSTING_PROVIDER ?? "local") !== "local") {
    return () => DEFAULT_PATH_GUARD;
  }
  const outsider = pathGuard({ protectedDirs: [agentsDir], workspace: containerAgentWorkspace() });
  const guards = new Map<string, PathGuard>();
  return (agentId) => {
    if (!AGENT_ID.test(agentId)) return outsider;
    let guard = guards.get(agentId);
    if (guard === undefined) {
      if (guards.size >= MAX_CACHED_GUARDS) guards.clear();
      guard = pathGuard({ protectedDirs: [agentsDir], workspace: localAgentWorkspace(agentsDir, agentId) });
      guards.set(agentId, guard);
    }
    return guard;
  };
}

const DEFAULT_POLICY = permissionPolicy();

export interface PermissionServiceDeps {
  db: Database;
  bus: Pick<PermissionBus, "publish">;
  /** Where a failed announcement is reported (the stored state is already final then). */
  logger?: Logger;
  /** Request times, expiry and decision times (default: the system clock). */
  clock?: Clock;
  /** Default: `permissionPolicy()` (the configuration's defaults). */
  policy?: PermissionPolicy;
}

/** Unix ms at or before which a pending request is expired. */
export function pendingCutoff(deps: Pick<PermissionServiceDeps, "clock" | "policy">): number {
  const now = (deps.clock ?? systemClock).now().getTime();
  return now - (deps.policy ?? DEFAULT_POLICY).pendingTtlMs;
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
 * Classifies a tool call: safe → allowed, no record; destructive →
 * blocked, no record; dangerous → a pending request, announced as `permission_request`, not allowed yet —
 * unless the agent already has `maxPendingPerAgent` live pending requests: then refused, no record.
 */
export async function classifyAndQueue(
  deps: PermissionServiceDeps,
  input: ClassifyInput,
): Promise<ClassifyAnswer> {
  const policy = deps.policy ?? DEFAULT_POLICY;
  const { tier, reason } = classifyToolCall(input.toolName, input.toolInput, policy.guardFor(input.agentId));
  if (tier !== "dangerous") {
    countPermissionRequest(tier, tier === "safe" ? "allowed" : "blocked");
    return { allow: tier === "safe", tier, reason };
  }
  const now = (deps.clock ?? systemClock).now();
  const request = await queuePermissionRequest(
    deps.db,
    { ...input, tier, reason, now },
    { cutoffMs: now.getTime() - policy.pendingTtlMs, maxPending: policy.maxPendingPerAgent },
  );
  countPermissionRequest(tier, request === null ? "refused" : "queued");
  if (request === null) {
    const refused = `not queued: this agent already has ${policy.maxPendingPerAgent} pending permission requests (decide some, or wait for them to expire)`;
    return { allow: false, tier, reason: `${reason}; ${refused}` };
  }
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
 * request is missing, another user's, already decided, or expired.
 */
export async function decideAndPublish(
  deps: PermissionServiceDeps,
  input: { userId: string; requestId: string; decision: PermissionDecision },
): Promise<DecisionAnswer> {
  const now = (deps.clock ?? systemClock).now();
  const cutoffMs = now.getTime() - (deps.policy ?? DEFAULT_POLICY).pendingTtlMs;
  const request = await decidePermission(deps.db, { ...input, now, cutoffMs });
  if (!request) throw permissionNotFound();
  countPermissionRequest(request.tier, input.decision);
  await announce(deps, {
    type: "decision",
    userId: request.userId,
    requestId: request.id,
    decision: input.decision,
    status: statusOf(input.decision),
    timestamp: now.getTime(),
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
