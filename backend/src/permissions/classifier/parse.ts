/**
 * A scanned command line (see scan.ts) parsed with shell-quote and split into simple commands at every
 * control operator (`;`, `&&`, `||`, `|`, `&`, `(`, `)`, `<(`, `>(`, …), with their redirections and the
 * here-document or here-string each one reads.
 */
import { type ParseEntry, parse } from "shell-quote";
import { CLOSE_BRACE_MARK, HEREDOC, LITERAL_DOLLAR, OPEN_BRACE_MARK } from "./scan";

export interface Redirect {
  op: string;
  target: string;
}

export interface SimpleCommand {
  /** The words as the program gets them. */
  words: string[];
  /**
   * The same words with each `$` that is text marked (LITERAL_DOLLAR), so that an unmarked `$` is an
   * expansion; null when no word has one.
   */
  marked: string[] | null;
  redirects: Redirect[];
  /** Text on standard input when known: a here-document, a here-string. */
  heredoc: string | null;
  /** The command whose output is piped into this one. */
  pipedFrom: SimpleCommand | null;
}

const REDIRECTIONS = new Set([">", ">>", ">|", "&>", "&>>", ">&", "<", "<>", "<&", "<<", "<<-", "<<<"]);
const PIPES = new Set(["|", "|&"]);

/** Variables stay visible as `$NAME` (shell-quote would otherwise expand them to ""). */
const KEEP_VARIABLES: Record<string, string> = new Proxy(
  {},
  { get: (_target, key) => (typeof key === "string" ? `$${key}` : undefined) },
);

/** Throws when shell-quote rejects the text (for example a bad `${}` substitution). */
export function parseSimpleCommands(text: string, heredocs: readonly string[]): SimpleCommand[] {
  const entries: ParseEntry[] = parse(text, KEEP_VARIABLES);
  const commands: SimpleCommand[] = [];
  let current = newCommand(null);
  let pendingRedirect: string | null = null;

  for (const entry of entries) {
    let word: string | null = null;
    if (typeof entry === "string") word = entry;
    else if ("comment" in entry) continue;
    else if (entry.op === "glob") word = (entry as { pattern: string }).pattern;
    if (word !== null) {
      if (pendingRedirect !== null) {
        addRedirect(current, pendingRedirect, withDollars(restoreBraces(word)), heredocs);
        pendingRedirect = null;
      } else if (word.includes(OPEN_BRACE_MARK)) {
        for (const item of expandBraces(word)) pushWord(current, item);
      } else pushWord(current, word.includes(CLOSE_BRACE_MARK) ? restoreBraces(word) : word);
      continue;
    }
    const op = (entry as { op: string }).op;
    if (REDIRECTIONS.has(op)) pendingRedirect = op;
    else {
      pendingRedirect = null;
      current = finish(current, commands, PIPES.has(op));
    }
  }
  finish(current, commands, false);
  return commands;
}

/** Keeps `done` when it has content; returns the next command (piped from `done` after a pipe). */
function finish(done: SimpleCommand, commands: SimpleCommand[], pipedInto: boolean): SimpleCommand {
  if (done.words.length > 0 || done.redirects.length > 0) commands.push(done);
  return newCommand(pipedInto && done.words.length > 0 ? done : null);
}

function newCommand(pipedFrom: SimpleCommand | null): SimpleCommand {
  return { words: [], marked: null, redirects: [], heredoc: null, pipedFrom };
}

const LITERAL_DOLLARS = new RegExp(LITERAL_DOLLAR, "g");

function withDollars(word: string): string {
  return word.includes(LITERAL_DOLLAR) ? word.replace(LITERAL_DOLLARS, "$") : word;
}

function pushWord(command: SimpleCommand, word: string): void {
  if (word.includes(LITERAL_DOLLAR)) {
    command.marked ??= [...command.words];
    command.marked.push(word);
    command.words.push(withDollars(word));
    return;
  }
  command.words.push(word);
  command.marked?.push(word);
}

function addRedirect(command: SimpleCommand, op: string, target: string, heredocs: readonly string[]): void {
  if (op === "<<" || op === "<<-") {
    if (target.startsWith(HEREDOC)) {
      const body = heredocs[Number(target.slice(HEREDOC.length))];
      if (body !== undefined) command.heredoc = body;
    }
    return;
  }
  if (op === "<<<") {
    command.heredoc = target;
    return;
  }
  command.redirects.push({ op, target });
}

const OPEN_MARKS = new RegExp(OPEN_BRACE_MARK, "g");
const CLOSE_MARKS = new RegExp(CLOSE_BRACE_MARK, "g");
const MAX_BRACE_ITEMS = 16;

function restoreBraces(word: string): string {
  return word.replace(OPEN_MARKS, "{").replace(CLOSE_MARKS, "}");
}

/**
 * Brace expansion of the first unquoted `{a,b,…}` group of a word: `{rm,-rf,/}` is `rm -rf /` to bash.
 * Quoted braces were not marked by the scanner and stay literal.
 */
function expandBraces(word: string): string[] {
  const open = word.indexOf(OPEN_BRACE_MARK);
  const close = word.indexOf(CLOSE_BRACE_MARK, open);
  const inner = close < 0 ? "" : word.slice(open + 1, close);
  if (close < 0 || !inner.includes(",") || inner.includes(OPEN_BRACE_MARK)) return [restoreBraces(word)];
  const prefix = restoreBraces(word.slice(0, open));
  const suffix = restoreBraces(word.slice(close + 1));
  return inner
    .split(",")
    .slice(0, MAX_BRACE_ITEMS)
    .map((item) => `${prefix}${restoreBraces(item)}${suffix}`);
}
