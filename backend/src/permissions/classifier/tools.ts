/**
 * Tool-level rules: `bash`/`exec`/`shell` by their `command`; `write`/`file_write` dangerous for sensitive
 * paths (`.env`, `credentials`, `.ssh`); `read`/`file_read` safe; unknown tools dangerous; names compare
 * case-insensitively. A protected path (protected.ts: other processes' environments, the platform's state)
 * is dangerous to read or write with any tool (issue #12), and a write tool's path is judged like a shell
 * command's write target. Paths are the agent's workspace's (issue #24, workspace.ts): a write outside it or
 * to a configuration file in it, and a read outside the agent's own directory, are dangerous. OpenClaw's
 * built-in tools (issue #23) are in openclaw-tools.ts.
 */
import { classifyCommand } from "./command";
import { classifyOpenClawTool, execParameters } from "./openclaw-tools";
import { DEFAULT_PATH_GUARD, type PathGuard } from "./protected";
import { type Classification, dangerous, safe, shown } from "./types";
import { classifyReadPath, classifyWrittenPaths } from "./write-target";

const SHELL_TOOLS = new Set(["bash", "exec", "shell"]);
/** `edit` (OpenClaw) replaces text in the file at `path`: a write of that file. */
const WRITE_TOOLS = new Set(["write", "file_write", "edit"]);
const READ_TOOLS = new Set(["read", "file_read"]);
const PATH_FIELDS = ["path", "file_path", "filePath"] as const;

export function classifyToolCall(
  toolName: string,
  toolInput: unknown,
  guard: PathGuard = DEFAULT_PATH_GUARD,
): Classification {
  if (typeof toolName !== "string") return dangerous("unknown-tool", "unknown tool: (not a name)");
  const name = toolName.toLowerCase();
  const input =
    toolInput !== null && typeof toolInput === "object" ? (toolInput as Record<string, unknown>) : null;
  if (SHELL_TOOLS.has(name)) {
    const command = input?.command;
    if (typeof command !== "string") return dangerous("missing-command", `${name} without a command`);
    return execParameters(input as Record<string, unknown>, classifyCommand(command, guard), guard);
  }
  if (WRITE_TOOLS.has(name)) {
    const paths = pathsOf(input);
    if (paths.length === 0) return dangerous("missing-path", `${name} without a path`);
    return classifyWrittenPaths(paths, guard);
  }
  if (READ_TOOLS.has(name)) {
    for (const path of pathsOf(input)) {
      const verdict = classifyReadPath(path, guard);
      if (verdict !== null) return verdict;
    }
    return safe("file-read", "file read");
  }
  return (
    classifyOpenClawTool(name, input, guard) ?? dangerous("unknown-tool", `unknown tool: ${shown(toolName)}`)
  );
}

function pathsOf(input: Record<string, unknown> | null): string[] {
  const paths: string[] = [];
  for (const field of PATH_FIELDS) {
    const value = input?.[field];
    if (typeof value === "string") paths.push(value);
  }
  return paths;
}
