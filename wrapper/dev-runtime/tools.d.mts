/** Types of `tools.mjs` (plain JavaScript, run by Node without a build) for the TypeScript tests. */
export const BASH_TIMEOUT_MS: number;
export const OUTPUT_LIMIT_BYTES: number;
export const WRITE_LIMIT_BYTES: number;
export const TOOL_DEFINITIONS: ReadonlyArray<{
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}>;
export class ToolError extends Error {}
export function pathInside(workspace: string, path: unknown): Promise<string>;
export function readTool(workspace: string, input: { path?: unknown }): Promise<string>;
export function writeTool(workspace: string, input: { path?: unknown; content?: unknown }): Promise<string>;
export function bashTool(
  workspace: string,
  input: { command?: unknown },
  options?: { signal?: AbortSignal; timeoutMs?: number; outputLimit?: number },
): Promise<string>;
export function askHook(
  hookPath: string,
  call: { name: string; input: unknown; sessionKey: string },
  options?: { signal?: AbortSignal },
): Promise<{ allowed: boolean; reason: string }>;
export function runToolCall(
  tools: { workspace: string; hookPath: string; bashTimeoutMs?: number },
  toolCall: { id?: string; function?: { name?: string; arguments?: string } },
  context: { sessionKey: string; signal?: AbortSignal; log?: { info(msg: string, extra?: object): void } },
): Promise<string>;
export function prepareWorkspace(dir: string): Promise<string>;
export function workspaceOf(stateRoot: string): string;
