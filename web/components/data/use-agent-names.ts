"use client";

import { useCallback } from "react";
import type { AgentSummary } from "@/lib/agents/inputs";
import { useResource } from "./use-resource";

/**
 * The names the user gave their agents (`GET /api/agents`), for pages that hold agent ids: `nameOf(id)` is
 * the agent's name, or the id itself until the names are read (or for an agent that is not the user's).
 */
export function useAgentNames(): { nameOf: (agentId: string) => string; reload: () => Promise<void> } {
  const list = useResource<{ agents: AgentSummary[] }>("/api/agents");
  const agents = list.data?.agents;
  const nameOf = useCallback(
    (agentId: string) => agents?.find((agent) => agent.id === agentId)?.name ?? agentId,
    [agents],
  );
  return { nameOf, reload: list.reload };
}
