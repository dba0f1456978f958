/**
 * Classifies a command line: scan (scan.ts), parse into simple commands (parse.ts), classify each one by
 * its program's rule (rules/), combine by taking the most severe. Substitutions, `bash -c` strings, `eval`
 * and the like are classified recursively, at most MAX_DEPTH levels deep.
 */

import { computedNetworkArgument } from "./computed";
import { parseSimpleCommands, type Redirect, type SimpleCommand } from "./parse";
import { isRootLikeDirectory } from "./paths";
import { type PathGuard, protectedPathVerdict } from "./protected";
import { type Invocation, RULES } from "./registry";
import "./rules/index";
import { HEREDOC, type ScanResult, SUBSTITUTION, scanCommandLine } from "./scan";
import { type Classification, dangerous, safe, shown, worse } from "./types";
import { classifyWriteTarget } from "./write-target";

export const MAX_DEPTH = 8;
/** Wrappers unwrapped in one simple command (`sudo env nice …`). */
const MAX_WRAPPERS = 32;
export const MAX_COMMAND_LENGTH = 128 * 1024;
/** What reaches shell-quote after here-document bodies are cut out (bounds the worst case near 50 ms). */
export const MAX_PARSED_LENGTH = 32 * 1024;
/** Substitutions and expansions classified per line. */
export const MAX_SUBSTITUTIONS = 64;

export interface LineContext {
  depth: number;
  cwdRootLike: boolean;
  /** The platform's protected paths (protected.ts). */
  guard: PathGuard;
}

const EMPTY = Object.freeze(safe("empty-command", "empty command"));
const ASSIGNMENT_ONLY = Object.freeze(safe("variable-assignment", "variable assignment"));
const TOO_DEEP = Object.freeze(
  dangerous("nesting-too-deep", `nesting too deep: more than ${MAX_DEPTH} levels`),
);
const TOO_COMPLEX = Object.freeze(
  dangerous("unparseable-command", "unparseable command: too complex to scan"),
);
const TOO_LONG_TO_PARSE = Object.freeze(
  dangerous(
    "unparseable-command",
    `unparseable command: more than ${MAX_PARSED_LENGTH} characters of commands`,
  ),
);
const TOO_MANY_SUBSTITUTIONS = Object.freeze(
  dangerous("unparseable-command", `unparseable command: more than ${MAX_SUBSTITUTIONS} substitutions`),
);
const TOO_MANY_WRAPPERS = Object.freeze(
  dangerous("nesting-too-deep", `nesting too deep: more than ${MAX_WRAPPERS} wrapper commands`),
);

/** Words that open or continue a compound command and are followed by a command. */
const LEADING_KEYWORDS = new Set([
  "!",
  "{",
  "}",
  "then",
  "do",
  "else",
  "if",
  "elif",
  "while",
  "until",
  "coproc",
]);
/** Words that start something that is not a command (its words are data). */
const NON_COMMANDS = new Set(["for", "case", "select", "in", "esac", "fi", "done"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
const VERSIONED = /^(python|pypy|pip|ruby|perl|php|node|lua|irb|gem|pydoc|idle)[0-9][0-9.]*$/;
const FD_TARGET = /^(?:\d+|-)$/;
/** Directories whose programs are the standard ones (`/bin/rm` is `rm`). */
const STANDARD_BIN_DIRS = new Set([
  "/bin",
  "/sbin",
  "/usr/bin",
  "/usr/sbin",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/opt/homebrew/bin",
  "/opt/homebrew/sbin",
  "/usr/libexec",
]);
/** Program-name prefixes with a family rule (`mkfs.ext4`). */
const PREFIX_RULES = ["mkfs.", "mkfs_", "newfs_", "mke2fs."];
const STDIN_PRODUCERS = new Set(["echo", "printf"]);

export function classifyLine(text: string, context: LineContext): Classification {
  if (context.depth > MAX_DEPTH) return TOO_DEEP;
  const scanned = scanCommandLine(text);
  if (scanned === null) return TOO_COMPLEX;
  // A malformed line is reported as such first; its parts are still classified (a worse part wins).
  let result: Classification | null =
    scanned.problem === null
      ? null
      : dangerous("unparseable-command", `unparseable command: ${scanned.problem}`);
  let commands: SimpleCommand[] = [];
  if (scanned.text.length > MAX_PARSED_LENGTH) {
    result ??= TOO_LONG_TO_PARSE;
  } else {
    try {
      commands = parseSimpleCommands(scanned.text, scanned.heredocs);
    } catch (error) {
      result ??= dangerous(
        "unparseable-command",
        `unparseable command: ${shown((error as Error).message, 40)}`,
      );
    }
  }
  const local: LineContext = { depth: context.depth, cwdRootLike: context.cwdRootLike, guard: context.guard };
  for (const command of commands) {
    const verdict = classifySimpleCommand(command, local);
    result = result === null ? verdict : worse(result, verdict);
  }
  return classifyNested(scanned, local, result) ?? EMPTY;
}

/** Arithmetic and `${…}` texts: not commands, but their substitutions run. */
function classifyExpansion(text: string, context: LineContext): Classification | null {
  if (context.depth > MAX_DEPTH) return TOO_DEEP;
  const scanned = scanCommandLine(text);
  if (scanned === null) return TOO_COMPLEX;
  return classifyNested(scanned, context, null);
}

/** The substitutions and expansions of a scanned text, one level deeper, combined into `result`. */
function classifyNested(
  scanned: ScanResult,
  context: LineContext,
  start: Classification | null,
): Classification | null {
  let result = start;
  const inner: LineContext = {
    depth: context.depth + 1,
    cwdRootLike: context.cwdRootLike,
    guard: context.guard,
  };
  let budget = MAX_SUBSTITUTIONS;
  for (const substitution of scanned.substitutions) {
    if (--budget < 0) break;
    const verdict = classifyLine(substitution, inner);
    result = result === null ? verdict : worse(result, verdict);
  }
  for (const expansion of scanned.expansions) {
    if (--budget < 0) break;
    const verdict = classifyExpansion(expansion, inner);
    if (verdict !== null) result = result === null ? verdict : worse(result, verdict);
  }
  if (budget < 0) result = result === null ? TOO_MANY_SUBSTITUTIONS : worse(result, TOO_MANY_SUBSTITUTIONS);
  return result;
}

/** `context` belongs to the line: a `cd` here changes it for the commands after it. */
function classifySimpleCommand(command: SimpleCommand, context: LineContext): Classification {
  const words = command.words;
  let start = 0;
  while (start < words.length) {
    const word = words[start];
    if (LEADING_KEYWORDS.has(word) || ASSIGNMENT.test(word)) start++;
    // `function NAME { …`: the body's first command follows in the same simple command.
    else if (word === "function") start += 2;
    else break;
  }
  let result: Classification = ASSIGNMENT_ONLY;
  if (start < words.length && NON_COMMANDS.has(words[start])) {
    result = safe("shell-builtin", `shell keyword: ${words[start]}`);
  } else if (start < words.length) {
    const argv = start === 0 ? words : words.slice(start);
    result = classifyArgv(argv, stdinOf(command), context, 0);
    trackDirectory(argv, context);
  }
  for (const redirect of command.redirects) result = worse(result, classifyRedirect(redirect));
  return worse(result, protectedWords(command, context.guard));
}

const NOTHING_PROTECTED = Object.freeze(safe("no-protected-path", "no protected path"));

/**
 * Any word or redirection (input too: `< /proc/self/environ`) naming a protected path (protected.ts),
 * whatever the program does with it.
 */
function protectedWords(command: SimpleCommand, guard: PathGuard): Classification {
  for (const word of command.words) {
    const verdict = protectedPathVerdict(word, guard);
    if (verdict !== null) return verdict;
  }
  for (const redirect of command.redirects) {
    const verdict = protectedPathVerdict(redirect.target, guard);
    if (verdict !== null) return verdict;
  }
  return NOTHING_PROTECTED;
}

function stdinOf(command: SimpleCommand): string | null {
  if (command.heredoc !== null) return command.heredoc;
  const producer = command.pipedFrom;
  if (producer === null) return null;
  const index = effectiveProgram(producer.words);
  const program = index < 0 ? "" : baseName(producer.words[index]);
  if (STDIN_PRODUCERS.has(program)) return producer.words.slice(index + 1).join(" ");
  if (producer.heredoc !== null && (program === "cat" || program === "tee")) return producer.heredoc;
  return null;
}

/** Prefixes that run the rest of the words as the command (`time`, `nohup`, `env`, `sudo`, …). */
const PREFIXES = new Set([
  "time",
  "nohup",
  "env",
  "command",
  "builtin",
  "exec",
  "sudo",
  "doas",
  "nice",
  "timeout",
  "stdbuf",
  "setsid",
  "unbuffer",
  "xargs",
]);
const PREFIX_ARGUMENT = /^(?:-.*|[A-Za-z_][A-Za-z0-9_]*=.*|\d+(?:\.\d+)?[smhd]?)$/;

/** Index of the program a prefixed command runs (`time nohup echo x` → echo), or -1. */
function effectiveProgram(words: readonly string[]): number {
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (PREFIXES.has(baseName(word)) || PREFIX_ARGUMENT.test(word)) continue;
    return i;
  }
  return -1;
}

function baseName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1).toLowerCase();
}

/** `cd /`, `cd ~`, `cd`: later relative targets (`*`, `.`) are root-like. */
function trackDirectory(argv: readonly string[], context: LineContext): void {
  const index = effectiveProgram(argv);
  const program = index < 0 ? "" : baseName(argv[index]);
  if (program !== "cd" && program !== "pushd") return;
  const target = argv.find((arg, at) => at > index && !arg.startsWith("-"));
  context.cwdRootLike = target === undefined ? program === "cd" : isRootLikeDirectory(target);
}

const WRITE_REDIRECTIONS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

export function classifyRedirect(redirect: Redirect): Classification {
  if (!WRITE_REDIRECTIONS.has(redirect.op)) return EMPTY;
  const target = redirect.target;
  if (redirect.op === ">&" && FD_TARGET.test(target)) return EMPTY;
  return classifyWriteTarget(target, redirect.op, EMPTY);
}

/** Classifies one command given as words: the program's rule, or "unknown command". */
export function classifyArgv(
  argv: readonly string[],
  stdin: string | null,
  context: LineContext,
  wrappers: number,
): Classification {
  if (wrappers > MAX_WRAPPERS) return TOO_MANY_WRAPPERS;
  const written = argv[0];
  if (written === undefined) return EMPTY;
  if (written.includes(SUBSTITUTION) || written.includes("$") || written.includes(HEREDOC)) {
    return dangerous(
      "unknown-command",
      `unknown command: dynamic program name ${shown(written.replaceAll(SUBSTITUTION, "$(…)"))}`,
    );
  }
  let name = written.toLowerCase();
  let floor: Classification | null = null;
  const slash = name.lastIndexOf("/");
  if (slash >= 0) {
    const dir = name.slice(0, slash);
    name = name.slice(slash + 1);
    if (!STANDARD_BIN_DIRS.has(dir)) floor = dangerous("code-execution", `code execution: ${shown(written)}`);
  }
  const versioned = VERSIONED.exec(name);
  if (versioned) name = versioned[1];
  const rule = RULES.get(name) ?? prefixRule(name);
  if (rule === undefined) {
    const unknown = dangerous("unknown-command", `unknown command: ${shown(name || written)}`);
    return floor ?? unknown;
  }
  const args = argv.slice(1);
  let verdict = rule(new RuleInvocation(name, args, stdin, context, wrappers));
  if (verdict.tier === "safe" && NETWORK_READ_RULES.has(verdict.rule)) {
    verdict = computedNetworkArgument(name, args) ?? verdict;
  }
  return floor === null ? verdict : worse(verdict, floor);
}

/** Safe verdicts of commands that reach the network: a computed argument may carry data out. */
const NETWORK_READ_RULES = new Set(["network-read", "package-info"]);

/** A class, not an object of closures: nothing is allocated per call but the instance. */
class RuleInvocation implements Invocation {
  readonly cwdRootLike: boolean;

  constructor(
    readonly name: string,
    readonly args: readonly string[],
    readonly stdin: string | null,
    private readonly context: LineContext,
    private readonly wrappers: number,
  ) {
    this.cwdRootLike = context.cwdRootLike;
  }

  line(text: string): Classification {
    return classifyLine(text, {
      depth: this.context.depth + 1,
      cwdRootLike: this.context.cwdRootLike,
      guard: this.context.guard,
    });
  }

  argv(words: readonly string[]): Classification {
    return classifyArgv(words, this.stdin, this.context, this.wrappers + 1);
  }
}

function prefixRule(name: string) {
  for (const prefix of PREFIX_RULES) {
    if (name.startsWith(prefix)) return RULES.get(prefix.slice(0, -1).replace("_", ""));
  }
  return undefined;
}
