/** The agent environment the hosting tests give their agents (see `agentEnvironment`). */
import { agentEnvironment } from "../types";

export function testAgentEnvironment(agentId: string, token: string, adminPassword: string) {
  return agentEnvironment({
    gatewayToken: token,
    adminPassword,
    aiProvider: "openrouter",
    model: "openai/gpt-4o-mini",
    agentType: "creative",
    plan: "solo",
    agentId,
    backendUrl: "http://127.0.0.1:4000",
  });
}
