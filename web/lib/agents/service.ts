/**
 * The user's agents by name (`GET /api/agents`) and their renaming (`PATCH /api/agents/{agentId}`). A name is
 * the platform's label for people (pages show it wherever an agent is meant); the runtime never sees it.
 */
import { type Agent, agents } from "@svc/db/schema";
import { and, desc, eq } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { agentNotFound } from "./errors";
import type { AgentSummary, RenameAgentInput } from "./inputs";

type Deps = Pick<WebContext, "db" | "clock">;

function summaryOf(row: Agent): AgentSummary {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The user's agents, newest first. */
export async function listAgents(deps: Deps, userId: string): Promise<AgentSummary[]> {
  const rows = await deps.db
    .select()
    .from(agents)
    .where(eq(agents.userId, userId))
    .orderBy(desc(agents.createdAt), desc(agents.id));
  return rows.map(summaryOf);
}

/** Gives one of the user's agents a new name; 404 for an agent of somebody else's or none. */
export async function renameAgent(
  deps: Deps,
  userId: string,
  agentId: string,
  input: RenameAgentInput,
): Promise<AgentSummary> {
  const [row] = await deps.db
    .update(agents)
    .set({ name: input.name, updatedAt: deps.clock.now() })
    .where(and(eq(agents.id, agentId), eq(agents.userId, userId)))
    .returning();
  if (!row) throw agentNotFound("not_found");
  return summaryOf(row);
}

/**
 * The user's agent `agentId`, for every route that acts for one of the caller's agents; 404
 * `agent_not_found` when it does not exist or belongs to someone else (another user's agent looks like none).
 */
export async function requireUserAgent(
  deps: Pick<Deps, "db">,
  userId: string,
  agentId: string,
): Promise<Agent> {
  const [agent] = await deps.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.userId, userId)))
    .limit(1);
  if (!agent) throw agentNotFound();
  return agent;
}
