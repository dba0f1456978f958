/**
 * The inversion of issue #24. A rule may rate a program safe; the verdict stands only when every argument
 * is one the program's list (harmless-programs.ts) knows to be harmless: each option by name, with what its
 * value is (text, a file read, a file written, standard output, a URL), each operand by kind (text, files
 * read or written, URLs, the command a wrapper runs), and every path inside the agent's own directory
 * (workspace.ts). Anything else is dangerous: an option not listed (`sed --foo`, `git -c k=v`, `less +!cmd`,
 * an abbreviation of a listed one), a computed word where an option or a path may stand (`cat $(…)`: its
 * value may be `--output=…`), a path outside. A program without a list is safe with no arguments only, and
 * version queries (`node --version`) are harmless for every program.
 */
import { isComputed } from "./computed";
import { isVersionQuery } from "./registry";
import { SUBSTITUTION } from "./scan";
import { type Classification, dangerous, shown } from "./types";
import { commandUrlVerdict } from "./urls";
import { readVerdict, resolvePath, type Segments, type Workspace, writeVerdict } from "./workspace";
import { HARMLESS_INPUTS, HARMLESS_OUTPUTS } from "./write-target";

export type Bindings = ReadonlyMap<string, readonly string[]>;

/** Where the command runs: the line's possible directories, the agent's workspace, the loop variables. */
export interface PathContext {
  readonly cwds: readonly Segments[] | null;
  readonly workspace: Workspace;
  readonly bindings: Bindings | null;
}

/** How an option takes its value. */
type ValueKind =
  | "flag"
  | "optional"
  | "text"
  | "path"
  | "written"
  | "output"
  | "url"
  | "text text"
  | "text path";

const KINDS: Readonly<Record<string, ValueKind>> = {
  T: "text",
  P: "path",
  W: "written",
  O: "output",
  U: "url",
  TT: "text text",
  TP: "text path",
};

export interface ParsedOption {
  name: string;
  value: string | null;
}

/** One checked invocation, for operand checks. */
export interface Call {
  readonly label: string;
  readonly options: readonly ParsedOption[];
  readonly paths: PathContext;
  /** A path operand is read recursively (`grep -r`, `rg`). */
  readonly recursive: boolean;
  has(...names: string[]): boolean;
  read(word: string, recursive?: boolean): Classification | null;
  write(word: string): Classification | null;
}

export type OperandCheck = (operands: readonly string[], call: Call) => Classification | null;
export type Operands = "paths" | "written" | "text" | "none" | "command" | "urls" | OperandCheck;

export interface ProgramSpec {
  readonly short: ReadonlyMap<string, ValueKind>;
  readonly long: ReadonlyMap<string, ValueKind>;
  /** `-20` (head, git log). */
  readonly numeric: boolean;
  /** Options are whole words after one dash (`find -name`, `xxd -len`). */
  readonly singleDash: boolean;
  /** Options end at the first operand (wrappers: the command starts there). */
  readonly stop: boolean;
  /** `+…` words are options too, and none is listed (`less +!cmd`). */
  readonly plus: boolean;
  /**
   * Every word is harmless text, options included: nothing to check, and a computed word is harmless
   * anywhere (`echo $(…)`, `[ -f "$x" ]`).
   */
  readonly anyText: boolean;
  /** Whole words that are flags (wget's `-nv`, `-nc`). */
  readonly words: ReadonlySet<string>;
  readonly operands: Operands;
  /** Without a path operand the program reads its working directory (`ls`, `git status`). */
  readonly implicit: boolean;
  /** Options that make its path operands read recursively; `true`: always recursive. */
  readonly recursive: ReadonlySet<string> | true | null;
}

export interface SpecFlags {
  stop?: boolean;
  plus?: boolean;
  anyText?: boolean;
  implicit?: boolean;
  singleDash?: boolean;
  /** Space-separated option names that make reads recursive, or `true`. */
  recursive?: string | true;
  /** Space-separated whole words that are flags (`-nv`). */
  words?: string;
}

const OPTION_TOKEN = /^(--?[^=?\s]+)(?:(\?)|=([A-Z]{1,2}))?$/;

/**
 * A program's list: `options` is a space-separated list of `-x` (a flag), `-x?` (an optional value in the
 * same word), `-x=K` (a value: T text, P a file read, W a file written, O standard output or a harmless
 * device, U a URL, TT two words of text, TP a word of text and a file read), the same for `--long`, and
 * `-#` for numeric options (`-20`).
 */
export function spec(options: string, operands: Operands, flags: SpecFlags = {}): ProgramSpec {
  const short = new Map<string, ValueKind>();
  const long = new Map<string, ValueKind>();
  let numeric = false;
  const singleDash = flags.singleDash ?? false;
  for (const token of options.split(/\s+/)) {
    if (token === "") continue;
    if (token === "-#") {
      numeric = true;
      continue;
    }
    const match = OPTION_TOKEN.exec(token);
    if (match === null) throw new Error(`bad option token ${token}`);
    const [, name, optional, kind] = match;
    const value: ValueKind = optional ? "optional" : kind ? KINDS[kind] : "flag";
    if (value === undefined) throw new Error(`bad option kind ${token}`);
    if (!singleDash && name.length === 2 && name[1] !== "-") short.set(name[1], value);
    else long.set(name, value);
  }
  return {
    short,
    long,
    numeric,
    singleDash,
    stop: flags.stop ?? false,
    plus: flags.plus ?? false,
    anyText: flags.anyText ?? false,
    words: new Set(flags.words?.split(/\s+/) ?? []),
    operands,
    implicit: flags.implicit ?? false,
    recursive:
      flags.recursive === true
        ? true
        : flags.recursive === undefined
          ? null
          : new Set(flags.recursive.split(/\s+/)),
  };
}

export const PROGRAMS = new Map<string, ProgramSpec>();

/** Lists `programSpec` for each of `names` (harmless-programs.ts). */
export function listed(names: readonly string[] | string, programSpec: ProgramSpec): void {
  for (const name of typeof names === "string" ? names.trim().split(/\s+/) : names) {
    if (PROGRAMS.has(name)) throw new Error(`harmless-argument list given twice: ${name}`);
    PROGRAMS.set(name, programSpec);
  }
}

/**
 * Null when every argument of `name` (a program its rule rated safe) is known to be harmless, else the
 * dangerous verdict naming the first that is not.
 */
export function harmlessArguments(
  name: string,
  args: readonly string[],
  paths: PathContext,
  /** The rule's verdict: a file reader without a list still reads its working directory (`fd`, `eza`). */
  rule: string,
): Classification | null {
  const programSpec = PROGRAMS.get(name);
  if (programSpec === undefined) {
    if (args.length === 0 && rule === "read-only-file") {
      return readVerdict(".", name, paths.cwds, paths.workspace, true);
    }
    if (args.length === 0 || isVersionQuery(args)) return null;
    return dangerous(
      "unknown-option",
      `arguments not known to be harmless: ${name} ${shown(visible(args.join(" ")))}`,
    );
  }
  // A listed program's short flags are its list's; `--version` and `--help` mean that everywhere.
  if (args.length > 0 && args.every((arg) => arg === "--version" || arg === "--help")) return null;
  return checkArguments(name, programSpec, args, paths);
}

const NUMERIC = /^-\d+$/;
const MAX_EXPANDED = 64;

/** Checks `args` against `programSpec` (`label` names the program, and its subcommand, in reasons). */
export function checkArguments(
  label: string,
  programSpec: ProgramSpec,
  rawArgs: readonly string[],
  paths: PathContext,
): Classification | null {
  if (programSpec.anyText) return null;
  const args = paths.bindings === null ? rawArgs : expandBindings(rawArgs, paths.bindings);
  const operands: string[] = [];
  const options: ParsedOption[] = [];
  let ended = false;
  const valueVerdict = (option: string, kind: ValueKind, value: string | undefined) =>
    value === undefined ? null : checkValue(label, option, kind, value, paths);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!ended && isComputedWord(arg)) return computedArgument(label, arg);
    const plus = programSpec.plus && arg[0] === "+";
    if (ended || arg.length < 2 || (arg[0] !== "-" && !plus)) {
      operands.push(arg);
      if (programSpec.stop) ended = true;
      continue;
    }
    if (plus) return unknownOption(label, arg);
    if (arg === "--") {
      ended = true;
      continue;
    }
    if ((programSpec.numeric && NUMERIC.test(arg)) || programSpec.words.has(arg)) {
      options.push({ name: arg, value: null });
      continue;
    }
    if (programSpec.singleDash || arg[1] === "-") {
      const eq = arg.indexOf("=");
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      const kind = programSpec.long.get(name);
      if (kind === undefined) return unknownOption(label, name);
      if (kind === "flag" || kind === "optional") {
        if (kind === "flag" && eq > 0) return unknownOption(label, arg);
        options.push({ name, value: eq > 0 ? arg.slice(eq + 1) : null });
        continue;
      }
      if (eq > 0 && (kind === "text text" || kind === "text path")) return unknownOption(label, arg);
      if (kind === "text text" || kind === "text path") {
        const first = args[i + 1];
        const second = args[i + 2];
        i += 2;
        const verdict =
          valueVerdict(name, "text", first) ??
          valueVerdict(name, kind === "text text" ? "text" : "path", second);
        if (verdict !== null) return verdict;
        options.push({ name, value: first ?? null });
        continue;
      }
      const value = eq > 0 ? arg.slice(eq + 1) : args[++i];
      const verdict = valueVerdict(name, kind, value);
      if (verdict !== null) return verdict;
      options.push({ name, value: value ?? null });
      continue;
    }
    for (let j = 1; j < arg.length; j++) {
      const name = `-${arg[j]}`;
      const kind = programSpec.short.get(arg[j]);
      if (kind === undefined) return unknownOption(label, name);
      if (kind === "flag") {
        options.push({ name, value: null });
        continue;
      }
      if (kind === "optional") {
        options.push({ name, value: arg.slice(j + 1) || null });
        break;
      }
      const attached = arg.slice(j + 1);
      const value = attached !== "" ? attached : args[++i];
      const verdict = valueVerdict(name, kind, value);
      if (verdict !== null) return verdict;
      options.push({ name, value: value ?? null });
      break;
    }
  }
  const recursive =
    programSpec.recursive === true ||
    (programSpec.recursive !== null &&
      options.some((option) => (programSpec.recursive as ReadonlySet<string>).has(option.name)));
  const call = new CheckedCall(label, options, paths, recursive);
  const verdict = checkOperands(programSpec.operands, operands, call);
  if (verdict !== null) return verdict;
  if (programSpec.implicit && !call.readAny) return call.read(".");
  return null;
}

function checkValue(
  label: string,
  option: string,
  kind: ValueKind,
  value: string,
  paths: PathContext,
): Classification | null {
  if (isComputedWord(value)) return computedArgument(label, value);
  switch (kind) {
    case "path":
      return HARMLESS_INPUTS.has(value)
        ? null
        : readVerdict(value, `${label} ${option}`, paths.cwds, paths.workspace, false);
    case "written":
      return writeVerdict(value, `${label} ${option}`, paths.cwds, paths.workspace);
    case "output":
      return HARMLESS_OUTPUTS.has(value) || value.startsWith("/dev/fd/")
        ? null
        : dangerous("output-file", `output file: ${label} ${option} ${shown(value)}`);
    case "url":
      return commandUrlVerdict(value, label);
    default:
      return null;
  }
}

function checkOperands(
  operands: Operands,
  words: readonly string[],
  call: CheckedCall,
): Classification | null {
  switch (operands) {
    case "paths":
      for (const word of words) {
        if (word === "-") continue;
        const verdict = call.read(word);
        if (verdict !== null) return verdict;
      }
      return null;
    case "written":
      for (const word of words) {
        const verdict = call.write(word);
        if (verdict !== null) return verdict;
      }
      return null;
    case "urls":
      for (const word of words) {
        const verdict = commandUrlVerdict(word, call.label);
        if (verdict !== null) return verdict;
      }
      return null;
    case "none":
      return words.length === 0 ? null : unknownOperand(call.label, words[0]);
    case "text":
    case "command":
      return null;
    default:
      return operands(words, call);
  }
}

class CheckedCall implements Call {
  readAny = false;

  constructor(
    readonly label: string,
    readonly options: readonly ParsedOption[],
    readonly paths: PathContext,
    readonly recursive: boolean,
  ) {}

  has(...names: string[]): boolean {
    for (const option of this.options) if (names.includes(option.name)) return true;
    return false;
  }

  read(word: string, recursive = this.recursive): Classification | null {
    this.readAny = true;
    if (HARMLESS_INPUTS.has(word)) return null;
    return readVerdict(word, this.label, this.paths.cwds, this.paths.workspace, recursive);
  }

  write(word: string): Classification | null {
    if (HARMLESS_OUTPUTS.has(word) || word.startsWith("/dev/fd/")) return null;
    return writeVerdict(word, this.label, this.paths.cwds, this.paths.workspace);
  }
}

/** The same context with the working directory moved to `dir` (`git -C dir`); unknown when `dir` is. */
export function movedTo(paths: PathContext, dir: string): PathContext {
  return { ...paths, cwds: resolvePath(dir, paths.cwds, paths.workspace.home) };
}

/**
 * A program with subcommands: the first operand names one (`git status`), whose own list checks the words
 * after it; a subcommand not listed is not known to be harmless.
 */
export function subcommands(table: Readonly<Record<string, ProgramSpec>>): OperandCheck {
  return (operands, call) => checkSubcommand(table, operands, call.label, call.paths);
}

export function checkSubcommand(
  table: Readonly<Record<string, ProgramSpec>>,
  operands: readonly string[],
  label: string,
  paths: PathContext,
): Classification | null {
  const sub = operands[0];
  if (sub === undefined) return null;
  const subSpec = Object.hasOwn(table, sub) ? table[sub] : undefined;
  if (subSpec === undefined) return unknownOperand(label, sub);
  return checkArguments(`${label} ${sub}`, subSpec, operands.slice(1), paths);
}

/** `$f` of a `for f in a b` loop is each of its words. */
function expandBindings(args: readonly string[], bindings: Bindings): readonly string[] {
  let expanded: string[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const values = arg.includes("$") ? substitute(arg, bindings) : null;
    if (values === null) {
      expanded?.push(arg);
      continue;
    }
    expanded ??= args.slice(0, i);
    expanded.push(...values);
    if (expanded.length > MAX_EXPANDED) return args;
  }
  return expanded ?? args;
}

const VARIABLE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/;

/** The words `arg` is for every value of its first bound variable, or null when it has none. */
function substitute(arg: string, bindings: Bindings): string[] | null {
  const match = VARIABLE.exec(arg);
  if (match === null) return null;
  const values = bindings.get(match[1] ?? match[2]);
  if (values === undefined) return null;
  const before = arg.slice(0, match.index);
  const after = arg.slice(match.index + match[0].length);
  const words: string[] = [];
  for (const value of values) {
    const word = `${before}${value}${after}`;
    words.push(...(word.includes("$") ? (substitute(word, bindings) ?? [word]) : [word]));
  }
  return words;
}

const KNOWN_DIRECTORY = /^\$(?:HOME|PWD)(?=\/|$)/;

/** A word whose value is not known before it runs; `$HOME/…` and `$PWD/…` are (workspace.ts). */
function isComputedWord(word: string): boolean {
  return isComputed(KNOWN_DIRECTORY.test(word) ? word.replace(KNOWN_DIRECTORY, "") : word);
}

function visible(text: string): string {
  return text.replaceAll(SUBSTITUTION, "$(…)");
}

export function unknownOption(label: string, option: string): Classification {
  return dangerous("unknown-option", `option not known to be harmless: ${label} ${shown(visible(option))}`);
}

export function unknownOperand(label: string, operand: string): Classification {
  return dangerous(
    "unknown-option",
    `argument not known to be harmless: ${label} ${shown(visible(operand))}`,
  );
}

function computedArgument(label: string, word: string): Classification {
  return dangerous("computed-argument", `computed argument: ${label} ${shown(visible(word))}`);
}
