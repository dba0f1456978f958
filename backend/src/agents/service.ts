/**
 * Agents as the runtime operations see them: loading one on behalf of a user (another user's agent looks
 * like a missing one) and recording what the hosting platform says about it.
 */
import type { Database } from "@svc/db";
import { type Agent, agents } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import { agentNotFound } from "./errors";

/** Who acts: the verified user context; administrators (`ADMIN_EMAILS`) may act on any agent. */
export interface AgentActor {
  userId: string;
  isAdmin: boolean;
}

/** The agent `agentId` when `actor` owns it (or is an administrator); otherwise 404 `agent not found`. */
export async function loadAgentFor(db: Database, agentId: string, actor: AgentActor): Promise<Agent> {
  const where = actor.isAdmin
    ? eq(agents.id, agentId)
    : and(eq(agents.id, agentId), eq(agents.userId, actor.userId));
  const rows = await db.select().from(agents).where(where).limit(1);
  if (!rows[0]) throw agentNotFound();
  return rows[0];
}

/** The agent by id (jobs and internal callers); null when absent. With `userId`, only that user's agent. */
export async function findAgent(db: Database, agentId: string, userId?: string): Promise<Agent | null> {
  const where = userId ? and(eq(agents.id, agentId), eq(agents.userId, userId)) : eq(agents.id, agentId);
  const rows = await db.select().from(agents).where(where).limit(1);
  return rows[0] ?? null;
}

export type AgentRuntimeFields = Partial<
  Pick<
    Agent,
    | "runtimeServiceId"
    | "url"
    | "image"
    | "version"
    | "status"
    | "plan"
    | "aiProvider"
    | "agentType"
    | "hostingProvider"
  >
>;

/** Stores runtime facts about an agent and returns the updated row. */
export async function updateAgentRuntime(
  db: Database,
  agentId: string,
  fields: AgentRuntimeFields,
): Promise<Agent> {
  const rows = await db.update(agents).set(fields).where(eq(agents.id, agentId)).returning();
  if (!rows[0]) throw agentNotFound();
  return rows[0];
}

export interface AgentJson {
  id: string;
  userId: string;
  name: string;
  status: string;
  url: string | null;
  runtimeServiceId: string | null;
  image: string | null;
  version: string | null;
  plan: string;
  aiProvider: string;
  agentType: string;
  hostingProvider: string;
  hasGatewayToken: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The agent's stored fields as the operations return them (never the encrypted token). */
export function agentJson(agent: Agent): AgentJson {
  return {
    id: agent.id,
    userId: agent.userId,
    name: agent.name,
    status: agent.status,
    url: agent.url,
    runtimeServiceId: agent.runtimeServiceId,
    image: agent.image,
    version: agent.version,
    plan: agent.plan,
    aiProvider: agent.aiProvider,
    agentType: agent.agentType,
    hostingProvider: agent.hostingProvider,
    hasGatewayToken: agent.gatewayTokenEncrypted !== null,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
  };
}
