/** The public entry for command lines: bounds the input, never throws. */
import { classifyLine, MAX_COMMAND_LENGTH } from "./engine";
import { type Classification, dangerous } from "./types";

export function classifyCommand(command: string): Classification {
  if (typeof command !== "string") return dangerous("missing-command", "command is not a string");
  if (command.length > MAX_COMMAND_LENGTH) {
    return dangerous(
      "unparseable-command",
      `unparseable command: longer than ${MAX_COMMAND_LENGTH} characters`,
    );
  }
  try {
    return { ...classifyLine(command, { depth: 0, cwdRootLike: false }) };
  } catch (error) {
    return dangerous("classifier-error", `classifier error: ${(error as Error).message.slice(0, 80)}`);
  }
}
