/**
 * Runtime operations on the signed-in user's agent: the web finds the
 * user's newest agent and forwards to the backend's `/api/agents/:agentId/<operation>` with the internal key
 * and the signed user context, answering with the backend's status and JSON body as they are.
 */
import type { Database } from "@svc/db";
import { type Agent, agents } from "@svc/db/schema";
import { desc, eq } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { answerJson, type BackendUser, callBackend } from "./backend-client";
import { backendUnavailable, noAgent, runtimeControlsDisabled } from "./errors";

/** Reads: they probe or look up, so they answer within seconds (the probe's longest timeout is 5 s). */
export const READ_TIMEOUT_MS = 15_000;
/** Lifecycle actions may redeploy and wait for the agent to become healthy (60 s by default). */
export const LIFECYCLE_TIMEOUT_MS = 120_000;

/** Every operation, its method, and whether it is a lifecycle action (503 while runtime controls are off). */
export const RUNTIME_OPERATIONS = {
  state: { method: "GET", lifecycle: false },
  stats: { method: "GET", lifecycle: false },
  "gateway-token": { method: "GET", lifecycle: false },
  health: { method: "GET", lifecycle: false },
  logs: { method: "GET", lifecycle: false },
  start: { method: "POST", lifecycle: true },
  stop: { method: "POST", lifecycle: true },
  restart: { method: "POST", lifecycle: true },
  repair: { method: "POST", lifecycle: true },
  "reset-memory": { method: "POST", lifecycle: true },
  update: { method: "POST", lifecycle: true },
  compat: { method: "POST", lifecycle: true },
  "heal-token": { method: "POST", lifecycle: true },
  maintenance: { method: "POST", lifecycle: true },
} as const satisfies Record<string, { method: "GET" | "POST"; lifecycle: boolean }>;
export type RuntimeOperation = keyof typeof RUNTIME_OPERATIONS;

/** The user's newest agent (the one every operation acts on), or null. */
export async function newestAgentOf(db: Database, userId: string): Promise<Agent | null> {
  const [agent] = await db
    .select()
    .from(agents)
    .where(eq(agents.userId, userId))
    .orderBy(desc(agents.createdAt), desc(agents.id))
    .limit(1);
  return agent ?? null;
}

/** 503 for a lifecycle action while NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS is false. */
export function assertRuntimeControls(ctx: WebContext, operation: RuntimeOperation): void {
  if (RUNTIME_OPERATIONS[operation].lifecycle && !ctx.config.NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS) {
    throw runtimeControlsDisabled();
  }
}

/**
 * Forwards `operation` for the user's newest agent and returns the backend's answer as the response. No agent:
 * 404 `no_agent`, except `health`, which answers 200 `{status: "no_agent"}`. The backend unreachable, too slow,
 * or answering something that is not JSON: 502 `backend_unavailable`.
 */
export async function forwardRuntimeOperation(
  ctx: WebContext,
  user: BackendUser,
  operation: RuntimeOperation,
  json?: Record<string, unknown>,
  /** Query string for the backend (already validated there), e.g. `lines=50` for logs. */
  query?: URLSearchParams,
): Promise<Response> {
  const agent = await newestAgentOf(ctx.db, user.id);
  if (!agent) {
    if (operation === "health") return Response.json({ status: "no_agent" }, { headers: NO_STORE });
    throw noAgent();
  }
  const { method, lifecycle } = RUNTIME_OPERATIONS[operation];
  const answer = await callBackend(ctx.config, {
    method,
    path: `/api/agents/${encodeURIComponent(agent.id)}/${operation}${query && query.size > 0 ? `?${query}` : ""}`,
    user,
    json,
    timeoutMs: lifecycle ? LIFECYCLE_TIMEOUT_MS : READ_TIMEOUT_MS,
  });
  if (answer.text.trim() === "") return new Response(null, { status: answer.status, headers: NO_STORE });
  if (answerJson(answer) === undefined) {
    ctx.logger.warn({ status: answer.status, operation, agentId: agent.id }, "backend answer is not JSON");
    throw backendUnavailable("the backend's answer is not JSON");
  }
  return new Response(answer.text, {
    status: answer.status,
    headers: { "content-type": "application/json", ...NO_STORE },
  });
}

/**
 * Asks the backend for a new gateway token for each agent whose token a claimed account revoked
 * (`claimUnprovenAccount`): the backend writes it and hands it to the runtime (`heal-token`). Never throws:
 * the sign-in that claimed the account does not wait for it. Until it succeeds the agent has no token, so
 * nothing authenticates as it; a failure is logged, and the Agent page's Repair (which issues a token when
 * the agent has none) or an operator's `heal-token` gives it one.
 */
export async function healClaimedAgents(
  ctx: WebContext,
  user: BackendUser,
  agentIds: string[],
): Promise<void> {
  for (const agentId of agentIds) {
    try {
      const answer = await callBackend(ctx.config, {
        method: "POST",
        path: `/api/agents/${encodeURIComponent(agentId)}/heal-token`,
        user,
        timeoutMs: LIFECYCLE_TIMEOUT_MS,
      });
      if (answer.status >= 400) {
        ctx.logger.warn(
          { agentId, status: answer.status, answer: answer.text.slice(0, 200) },
          "claimed account: the agent's revoked gateway token was not replaced",
        );
      } else ctx.logger.info({ agentId }, "claimed account: the agent has a new gateway token");
    } catch (err) {
      ctx.logger.warn(
        { agentId, err },
        "claimed account: the agent's revoked gateway token was not replaced",
      );
    }
  }
}

/** Operation answers (the gateway token among them) are never cached. */
const NO_STORE = { "cache-control": "no-store" };
