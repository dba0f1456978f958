import { z } from "zod";

/** Longest agent name (`POST /api/provision`, `PATCH /api/agents/{agentId}`). */
export const MAX_AGENT_NAME_LENGTH = 60;

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

/** The name a user gives an agent: 1 to 60 characters after trimming; longer is refused, never cut. */
export const agentName = z
  .string({ error: (i) => (i.input === undefined ? "name is required" : "name must be a string") })
  .trim()
  .min(1, "name must not be empty")
  .max(MAX_AGENT_NAME_LENGTH, `name must be at most ${MAX_AGENT_NAME_LENGTH} characters`)
  .meta({ title: "Agent name" });

/** `PATCH /api/agents/{agentId}` `{name}`. */
export const renameAgentBody = z.strictObject({ name: agentName }, unknownKeys);
export type RenameAgentInput = z.infer<typeof renameAgentBody>;

/** One of the user's agents as the dashboard names it (no URL, no token: those stay on the platform). */
export const agentSummary = z
  .object({
    id: z.string(),
    name: z.string(),
    /** pending, provisioning, running, stopped, crashed, degraded, crash_loop, failed (open set). */
    status: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "AgentSummary" });
export type AgentSummary = z.infer<typeof agentSummary>;
