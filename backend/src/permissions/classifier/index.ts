/**
 * Tiered classification of agent tool calls: safe tool calls
 * run at once, dangerous ones wait for the user's approval, destructive ones are blocked.
 */
export { classifyCommand } from "./command";
export { DEFAULT_PATH_GUARD, type PathGuard, type PathGuardOptions, pathGuard } from "./protected";
export { classifyToolCall } from "./tools";
export type { Classification, Tier } from "./types";
export { containerAgentWorkspace, localAgentWorkspace, type WorkspaceOptions } from "./workspace";
