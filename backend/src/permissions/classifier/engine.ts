/**
 * Classifies a command line: scan (scan.ts), parse into simple commands (parse.ts), classify each one by
 * its program's rule (rules/), combine by taking the most severe. Substitutions, `bash -c` strings, `eval`
 * and the like are classified recursively, at most MAX_DEPTH levels deep. A rule's safe verdict stands
 * only when every argument is known harmless (harmless.ts) and every path the agent's own (workspace.ts,
 * resolved from the directories the line's `cd`s may have led to); environment assignments, redirections
 * to files and protected paths are judged here for every command.
 */

import { computedNetworkArgument, isComputed } from "./computed";
import { type Bindings, harmlessArguments } from "./harmless";
import "./harmless-programs";
import { parseSimpleCommands, type Redirect, type SimpleCommand } from "./parse";
import { isRootLikeDirectory } from "./paths";
import { type PathGuard, protectedPathVerdict } from "./protected";
import { type Invocation, RULES } from "./registry";
import "./rules/index";
import { HEREDOC, type ScanResult, SUBSTITUTION, scanCommandLine } from "./scan";
import { type Classification, dangerous, safe, shown, worse } from "./types";
import { assignedName, isHarmlessVariable, isShellVariable } from "./variables";
import { readVerdict, resolvePath, type Segments } from "./workspace";
import { classifyWriteTarget, HARMLESS_DEVICES, HARMLESS_INPUTS } from "./write-target";

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
  /** The platform's protected paths and the agent's workspace (protected.ts, workspace.ts). */
  guard: PathGuard;
  /**
   * Every directory the line may be in at this point (null: not known): a `cd` adds its target to them,
   * never replaces them, because it may have run in a subshell (`(cd x); cat f`) that left the line where
   * it was.
   */
  cwds: readonly Segments[] | null;
  /** `for NAME in WORDS` loops of the line: NAME's values (workspace paths for `"$f"`). */
  bindings: Bindings | null;
}

/** Directories a line may be in at once before its paths are no longer resolved. */
const MAX_DIRECTORIES = 16;

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
  const local: LineContext = {
    depth: context.depth,
    cwdRootLike: context.cwdRootLike,
    guard: context.guard,
    cwds: context.cwds,
    bindings: loopBindings(commands, scanned.expansions),
  };
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
    cwds: context.cwds,
    bindings: null,
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
  let assignments: Classification | null = null;
  while (start < words.length) {
    const word = words[start];
    const name = assignedName(word);
    if (name !== null) {
      assignments ??= assignmentVerdict(name, words, start);
      start++;
    } else if (LEADING_KEYWORDS.has(word)) start++;
    // `function NAME { …`: the body's first command follows in the same simple command.
    else if (word === "function") start += 2;
    else break;
  }
  let result: Classification = assignments ?? ASSIGNMENT_ONLY;
  if (start < words.length && NON_COMMANDS.has(words[start])) {
    result = assignments ?? safe("shell-builtin", `shell keyword: ${words[start]}`);
  } else if (start < words.length) {
    const argv = start === 0 ? words : words.slice(start);
    const marked = command.marked === null ? null : command.marked.slice(start);
    const verdict = classifyArgv(argv, stdinOf(command), context, 0, marked);
    result = assignments === null ? verdict : worse(assignments, verdict);
    trackDirectory(argv, context);
  }
  for (const redirect of command.redirects) result = worse(result, classifyRedirect(redirect, context));
  // A protected path's reason names what the line reaches, whatever the program: it goes first.
  const protectedVerdict = protectedWords(command, context.guard);
  return protectedVerdict.tier === "safe" ? result : worse(protectedVerdict, result);
}

/**
 * `NAME=value` before a command sets the command's environment: harmless names only. Alone it sets a shell
 * variable, which the line's later commands see when NAME is already exported (`PATH=.; ls`): plain shell
 * variables only.
 */
function assignmentVerdict(name: string, words: readonly string[], at: number): Classification | null {
  let command = false;
  for (let i = at + 1; i < words.length; i++) {
    if (assignedName(words[i]) === null) {
      command = !LEADING_KEYWORDS.has(words[i]);
      break;
    }
  }
  if (command ? isHarmlessVariable(name) : isShellVariable(name)) return null;
  return dangerous("environment-assignment", `environment assignment: ${shown(name)}`);
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

/**
 * `cd /`, `cd ~`, `cd`: later relative targets (`*`, `.`) are root-like. Every `cd` adds where it leads to
 * the line's directories (unknown when its target is not known: `cd "$X"`, `cd -`, `popd`).
 */
function trackDirectory(argv: readonly string[], context: LineContext): void {
  const index = effectiveProgram(argv);
  const program = index < 0 ? "" : baseName(argv[index]);
  // `eval 'cd /'` and `trap 'cd /' DEBUG` change this shell's directory from inside a string.
  if ((program === "eval" || program === "trap") && DIRECTORY_CHANGE.test(argv.slice(index + 1).join(" "))) {
    context.cwds = null;
  }
  if (program !== "cd" && program !== "pushd" && program !== "popd") return;
  const target = argv.find((arg, at) => at > index && !arg.startsWith("-"));
  if (program !== "popd") {
    context.cwdRootLike = target === undefined ? program === "cd" : isRootLikeDirectory(target);
  }
  if (context.cwds === null) return;
  const leads = directoryTarget(program, target, context);
  if (leads === null) {
    context.cwds = null;
    return;
  }
  const cwds = [...context.cwds];
  for (const dir of leads) if (!cwds.some((known) => sameDirectory(known, dir))) cwds.push(dir);
  context.cwds = cwds.length > MAX_DIRECTORIES ? null : cwds;
}

/** Where `cd`/`pushd TARGET` lead (`cd` alone: home); null for `popd`, `pushd +N`, `cd -`, a computed one. */
function directoryTarget(program: string, target: string | undefined, context: LineContext) {
  const { workspace } = context.guard;
  if (program === "popd" || target?.startsWith("+")) return null;
  if (target === undefined) return program === "cd" ? workspace.home : null;
  return resolvePath(target, context.cwds, workspace.home);
}

const DIRECTORY_CHANGE = /\b(?:cd|pushd|popd)\b/;

function sameDirectory(a: Segments, b: Segments): boolean {
  return a.length === b.length && a.every((segment, i) => segment === b[i]);
}

const WRITE_REDIRECTIONS = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

/**
 * A redirection to a file is dangerous (it writes whatever the command prints, wherever it points; a raw
 * disk is destructive); one from a file is a read of it.
 */
export function classifyRedirect(redirect: Redirect, context: LineContext): Classification {
  const { op, target } = redirect;
  if (op === "<") {
    if (HARMLESS_INPUTS.has(target) || target.startsWith("/dev/fd/")) return EMPTY;
    return readVerdict(target, "<", context.cwds, context.guard.workspace, false) ?? EMPTY;
  }
  if (op === "<&") return FD_TARGET.test(target) ? EMPTY : fileRedirection(op, target);
  if (!WRITE_REDIRECTIONS.has(op)) return EMPTY;
  if (op === ">&" && FD_TARGET.test(target)) return EMPTY;
  if (op !== "<>" && (HARMLESS_DEVICES.has(target) || target.startsWith("/dev/fd/"))) return EMPTY;
  const special = classifyWriteTarget(target, op, EMPTY);
  return special === EMPTY ? fileRedirection(op, target) : special;
}

function fileRedirection(op: string, target: string): Classification {
  return dangerous("file-redirection", `redirection to a file: ${op} ${shown(target)}`);
}

/** Classifies one command given as words: the program's rule, or "unknown command". */
export function classifyArgv(
  argv: readonly string[],
  stdin: string | null,
  context: LineContext,
  wrappers: number,
  /** `argv` with its text dollars marked (parse.ts), for the harmless-argument check. */
  marked: readonly string[] | null = null,
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
  // The inversion (issue #24): safe only when every argument is one the program's list knows to be harmless.
  if (verdict.tier === "safe") {
    verdict =
      harmlessArguments(
        name,
        marked === null ? args : marked.slice(1),
        { cwds: context.cwds, workspace: context.guard.workspace, bindings: context.bindings },
        verdict.rule,
      ) ?? verdict;
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
      cwds: this.context.cwds,
      bindings: null,
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

/**
 * `for NAME in WORDS` (and `select`): NAME takes each of WORDS, so `"$NAME"` is judged as each of them. A
 * NAME the line sets otherwise (`read NAME`, `NAME=…`, `${NAME:=…}`, arithmetic) or a computed WORD leaves
 * it unknown.
 */
function loopBindings(commands: readonly SimpleCommand[], expansions: readonly string[]): Bindings | null {
  let bindings: Map<string, string[]> | null = null;
  const headers = new Set<SimpleCommand>();
  for (const command of commands) {
    const words = command.words;
    let at = 0;
    while (at < words.length && LEADING_KEYWORDS.has(words[at])) at++;
    if ((words[at] !== "for" && words[at] !== "select") || words[at + 2] !== "in") continue;
    const name = words[at + 1];
    const values = words.slice(at + 3);
    headers.add(command);
    bindings ??= new Map();
    const known = bindings.get(name);
    if (values.some(isComputed) || known?.length === 0) bindings.set(name, []);
    else bindings.set(name, [...(known ?? []), ...values]);
  }
  if (bindings === null) return null;
  for (const name of [...bindings.keys()]) {
    const tainted =
      expansions.some((text) => text.includes(name)) ||
      commands.some(
        (command) =>
          !headers.has(command) &&
          command.words.some(
            (word) => word === name || word.startsWith(`${name}=`) || word.startsWith(`${name}[`),
          ),
      );
    if (tainted || bindings.get(name)?.length === 0) bindings.delete(name);
  }
  return bindings.size === 0 ? null : bindings;
}
