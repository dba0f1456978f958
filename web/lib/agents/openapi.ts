import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
import { agentSummary, renameAgentBody } from "./inputs";

const tags = ["agents"];

/** The user's agents by name, and renaming one. */
export const agentsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/agents",
    summary: "The caller's agents with their names, newest first",
    tags,
    auth: ["session", "apiKey"],
    scope: "agent:read",
    success: { status: 200, description: "`{agents}`", schema: z.object({ agents: z.array(agentSummary) }) },
    errors: session,
  },
  {
    method: "patch",
    path: "/api/agents/{agentId}",
    summary: "Rename one of the caller's agents",
    tags,
    auth: ["session", "apiKey"],
    scope: "agent:write",
    body: renameAgentBody,
    success: { status: 200, description: "`{agent}`", schema: z.object({ agent: agentSummary }) },
    errors: {
      ...session,
      400: "bad body: the name is missing, empty or longer than 60 characters",
      404: "no such agent of the caller",
    },
  },
];
