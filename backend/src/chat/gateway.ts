/**
 * The runtime path of chat, shared by the chat job and the task scheduler: the agent's URL and gateway
 * token are read from its `agents` row (scoped to its user) when the call is made, never taken from a
 * request, a job or a task, and the messages go to the runtime's OpenAI-compatible
 * `POST /v1/chat/completions` through the one agent client (redirects refused, answer capped, deadline).
 * Only an agent whose stored status is `running` is called, and only once its wrapper proved it is that
 * agent (another agent may hold the loopback port of one that stopped: issue 24).
 */
import {
  AGENT_MAX_RESPONSE_BYTES,
  type AgentAnswer,
  openGatewayToken,
  requestAgent,
  wrapperAdminPassword,
} from "@svc/common";
import type { Database } from "@svc/db";
import { agents } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import { PermanentJobError } from "../platform-jobs/types";

/** How long a chat call to an agent may take; the scheduler's dispatch timeout too. */
export const GATEWAY_CHAT_TIMEOUT_MS = 30_000;

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface AgentGateway {
  url: string;
  token: string;
  /** The wrapper's admin password: what the agent proves it holds before the token is sent. */
  identityKey: string;
}

/** The columns of an agents row the runtime path reads (undefined: no such agent). */
export interface AgentGatewayRow {
  url: string | null;
  token: string | null;
  status: string;
}

/** The agent's stored URL and opened gateway token; throws (naming what is missing) when it has none. */
export async function agentGateway(
  db: Database,
  dataEncryptionKey: string | undefined,
  owner: { userId: string; agentId: string },
): Promise<AgentGateway> {
  const rows = await db
    .select({ url: agents.url, token: agents.gatewayTokenEncrypted, status: agents.status })
    .from(agents)
    .where(and(eq(agents.id, owner.agentId), eq(agents.userId, owner.userId)))
    .limit(1);
  return openAgentGateway(dataEncryptionKey, owner.agentId, rows[0]);
}

/**
 * The gateway of an agent row already read (undefined when there is no such agent); throws naming what is
 * missing — a PermanentJobError when retrying cannot help (the agent is gone or has no gateway token; a
 * missing URL may appear once it is deployed, and an agent that is not `running` may be started again).
 */
export function openAgentGateway(
  dataEncryptionKey: string | undefined,
  agentId: string,
  agent: AgentGatewayRow | undefined,
): AgentGateway {
  if (!agent) throw new PermanentJobError(`agent ${agentId} not found`);
  if (!agent.url) throw new Error(`agent ${agentId} has no runtime URL`);
  if (!agent.token || !dataEncryptionKey) throw new PermanentJobError("the agent has no gateway token");
  // Whatever answers at the URL of a stopped or crashed agent is not it: nothing is sent there.
  if (agent.status !== "running")
    throw new Error(`agent ${agentId} is ${agent.status}, not running: nothing was sent to it`);
  const token = openGatewayToken(dataEncryptionKey, agent.token);
  return { url: agent.url, token, identityKey: wrapperAdminPassword(dataEncryptionKey, agentId, token) };
}

export interface ChatCallOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
  signal?: AbortSignal;
  /**
   * The runtime's session the messages belong to, sent as OpenAI's `user` (OpenClaw keeps one session, its
   * history, per `user`; without one each call is a new session).
   */
  session?: string;
}

/**
 * `POST /v1/chat/completions` with the gateway token as Bearer, to the agent `openclaw` (the runtime's
 * default agent). Any status is an answer; unreachable, timed out or redirected calls throw an
 * AgentCallError naming "the agent gateway".
 */
export function postChatCompletion(
  gateway: AgentGateway,
  messages: ChatMessage[],
  options: ChatCallOptions = {},
): Promise<AgentAnswer> {
  return requestAgent(gateway.url, {
    method: "POST",
    path: "/v1/chat/completions",
    token: gateway.token,
    body: { model: "openclaw", messages, ...(options.session ? { user: options.session } : {}) },
    timeoutMs: options.timeoutMs ?? GATEWAY_CHAT_TIMEOUT_MS,
    maxResponseBytes: options.maxResponseBytes ?? AGENT_MAX_RESPONSE_BYTES,
    signal: options.signal,
    subject: "the agent gateway",
    identityKey: gateway.identityKey,
  });
}
