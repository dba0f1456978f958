/** A client of an agent's runtime gateway (wrapper URL + decrypted gateway token). */
import { openGatewayToken, wrapperAdminPassword } from "@svc/common";
import type { Agent } from "@svc/db/schema";
import type { WebContext } from "../infra/context";
import { createGatewayClient, type GatewayClient } from "../runtime/gateway-client";

export { newestAgentOf } from "../runtime/operations";

/**
 * A client of the agent's gateway, or null while the agent has no wrapper URL. Without a gateway token that
 * opens with DATA_ENCRYPTION_KEY the client can still read `/healthz`; its other calls fail as unauthorized.
 */
export function agentGatewayClient(
  ctx: Pick<WebContext, "config">,
  agent: Agent,
  timeoutMs?: number,
): GatewayClient | null {
  if (!agent.url) return null;
  const credentials = agentCredentials(ctx, agent);
  return createGatewayClient({
    baseUrl: agent.url,
    token: credentials?.token ?? null,
    identityKey: credentials?.identityKey ?? null,
    timeoutMs,
  });
}

/**
 * The agent's gateway token and the key its wrapper proves it holds before the token is sent to it (its
 * admin password: another agent may hold the loopback port of one that stopped); null without a token.
 */
export function agentCredentials(
  ctx: Pick<WebContext, "config">,
  agent: Agent,
): { token: string; identityKey: string } | null {
  const token = agentGatewayToken(ctx, agent);
  const key = ctx.config.DATA_ENCRYPTION_KEY;
  if (!token || !key) return null;
  return { token, identityKey: wrapperAdminPassword(key, agent.id, token) };
}

/** The agent's gateway token, or null when it has none or it does not open with DATA_ENCRYPTION_KEY. */
export function agentGatewayToken(ctx: Pick<WebContext, "config">, agent: Agent): string | null {
  const key = ctx.config.DATA_ENCRYPTION_KEY;
  const sealed = agent.gatewayTokenEncrypted;
  if (!key || !sealed) return null;
  try {
    return openGatewayToken(key, sealed) || null;
  } catch {
    return null;
  }
}
