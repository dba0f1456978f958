/** The public entry for command lines: bounds the input, never throws. */
import { classifyLine, MAX_COMMAND_LENGTH } from "./engine";
import { DEFAULT_PATH_GUARD, type PathGuard } from "./protected";
import { type Classification, dangerous } from "./types";

/**
 * `guard`: the platform's protected paths and the asking agent's workspace (`pathGuard({protectedDirs,
 * workspace})`); by default the built-in ones and an agent container's layout.
 */
export function classifyCommand(command: string, guard: PathGuard = DEFAULT_PATH_GUARD): Classification {
  if (typeof command !== "string") return dangerous("missing-command", "command is not a string");
  if (command.length > MAX_COMMAND_LENGTH) {
    return dangerous(
      "unparseable-command",
      `unparseable command: longer than ${MAX_COMMAND_LENGTH} characters`,
    );
  }
  try {
    return {
      ...classifyLine(command, {
        depth: 0,
        cwdRootLike: false,
        guard,
        cwds: guard.workspace.cwd,
        bindings: null,
      }),
    };
  } catch (error) {
    return dangerous("classifier-error", `classifier error: ${(error as Error).message.slice(0, 80)}`);
  }
}
