/**
 * Tiered classification of agent tool calls (spec "Permissions" → "Classification rules"): safe tool calls
 * run at once, dangerous ones wait for the user's approval, destructive ones are blocked.
 */
export { classifyCommand } from "./command";
export { classifyToolCall } from "./tools";
export type { Classification, Tier } from "./types";
