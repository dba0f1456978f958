/**
 * The rule table: one rule per program name (lower case), filled once at module load by the files in
 * rules/. A rule sees the program's arguments and returns the verdict; it classifies wrapped commands
 * (`sudo …`, `bash -c …`) through the invocation's `argv`/`line`, which the engine bounds in depth.
 */
import { type Classification, type Tier, verdict } from "./types";

export interface Invocation {
  /** Program name as looked up (lower case, directory and version suffix removed). */
  name: string;
  args: readonly string[];
  /** Standard input when known (here-document, here-string, `echo … |`), else null. */
  stdin: string | null;
  /** An earlier `cd` moved to `/` or the home directory, so `*` and `.` are root-like. */
  cwdRootLike: boolean;
  /** Classifies a command line given as text (`bash -c`, `eval`, `ssh host cmd`), one level deeper. */
  line(text: string): Classification;
  /** Classifies a command given as words (`sudo cmd`, `xargs cmd`, `find -exec cmd`). */
  argv(words: readonly string[]): Classification;
}

export type Rule = (invocation: Invocation) => Classification;

export const RULES = new Map<string, Rule>();

export function register(names: readonly string[], rule: Rule): void {
  for (const name of names) {
    if (RULES.has(name)) throw new Error(`classifier rule registered twice: ${name}`);
    RULES.set(name, rule);
  }
}

/** A program whose arguments do not matter: one verdict per name, built once. */
export function registerFixed(names: readonly string[], tier: Tier, rule: string, label: string): void {
  for (const name of names) {
    const fixed = Object.freeze(verdict(tier, rule, `${label}: ${name}`));
    register([name], () => fixed);
  }
}

const VERSION_FLAGS = new Set([
  "--version",
  "-v",
  "-V",
  "version",
  "--help",
  "-h",
  "help",
  "-version",
  "-help",
]);

/** `node --version`, `python -V`: asks the program about itself. */
export function isVersionQuery(args: readonly string[]): boolean {
  if (args.length === 0 || args.length > 2) return false;
  for (const arg of args) if (!VERSION_FLAGS.has(arg)) return false;
  return true;
}

/** A word list written as one whitespace-separated string (split once, at module load). */
export function words(text: string): string[] {
  return text.trim().split(WHITESPACE);
}
const WHITESPACE = /\s+/;
