import { z } from "zod";

/** Path parameters: a skill id and a tool name as MCP servers name them. */
export const skillIdParam = z.object({ skillId: z.string().min(1).max(64) });
export const toolCallParams = skillIdParam.extend({ toolName: z.string().min(1).max(128) });

/** A tool as listed by the skill's server. */
export const mcpTool = z
  .object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) })
  .meta({ id: "McpTool" });

/** `POST /api/mcp/:skillId` answer. */
export const activationAnswer = z.object({
  success: z.literal(true),
  skillId: z.string(),
  mcp: z.object({
    name: z.string(),
    version: z.string(),
    tools: z.array(mcpTool),
    startedAt: z.string(),
  }),
});
export type ActivationAnswer = z.infer<typeof activationAnswer>;

/** `DELETE /api/mcp/:skillId` answer. */
export const deactivationAnswer = z.object({
  success: z.literal(true),
  skillId: z.string(),
  message: z.string(),
});

/** The tool parameters: the body itself, or its `parameters` object; empty means none. */
export const toolCallBody = z
  .record(z.string(), z.unknown())
  .meta({ description: "the tool's arguments, directly or under `parameters`" });

/** `POST /api/mcp/:skillId/call/:toolName` answer. */
export const toolCallAnswer = z.object({
  skillId: z.string(),
  toolName: z.string(),
  success: z.literal(true),
  result: z.array(z.unknown()),
});
export type ToolCallAnswer = z.infer<typeof toolCallAnswer>;

/** A failed call: `{skillId, toolName, success: false, error, code}`. */
export const toolCallFailure = z.object({
  skillId: z.string(),
  toolName: z.string(),
  success: z.literal(false),
  error: z.string(),
  code: z.string(),
});

/** `GET /api/mcp`: every configured skill and the user's activation of it. */
export const skillSummary = z
  .object({
    id: z.string(),
    label: z.string(),
    builtIn: z.boolean(),
    active: z.boolean(),
    mcp: z
      .object({
        name: z.string(),
        version: z.string(),
        tools: z.array(mcpTool),
        startedAt: z.string(),
        lastUsedAt: z.string(),
      })
      .nullable(),
  })
  .meta({ id: "Skill" });
export type SkillSummary = z.infer<typeof skillSummary>;
export const skillList = z.object({ skills: z.array(skillSummary) });
