/** The skills area's metric: tool calls by skill and outcome (skill ids are the configured ones only). */
import { counter } from "@svc/common/metrics/index";

export type ToolCallOutcome = "ok" | "tool_error" | "transport_error" | "not_active";

export function countToolCall(skill: string, outcome: ToolCallOutcome): void {
  counter<"skill" | "outcome">({
    name: "skill_tool_calls_total",
    help: "Skill MCP tool calls by skill and outcome: ok, tool_error (isError or a JSON-RPC error), transport_error, not_active",
    labelNames: ["skill", "outcome"],
  }).inc({ skill, outcome });
}
