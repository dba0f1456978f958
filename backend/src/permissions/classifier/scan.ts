/**
 * The shell syntax `shell-quote` does not parse, done by a small quote-aware scanner before it: `$(…)`,
 * backticks and arithmetic are extracted (classified recursively) and replaced by a placeholder word;
 * here-document bodies are cut out and kept for the command that reads them (`bash <<EOF`); unquoted newlines
 * become `;` (shell-quote reads them as blanks); comments are dropped and a `#` inside a word is escaped,
 * because shell-quote starts a comment at any unquoted `#` (which would hide `a#b; rm -rf /`); a `$` that is
 * text becomes LITERAL_DOLLAR, so only a real expansion counts as computed (`awk '{print $1}'`). An
 * unterminated quote or substitution becomes `;`: what follows is still classified.
 */

/** Stands for the value of a substitution; a word containing it is dynamic. */
export const SUBSTITUTION = "\uE000";
/** Followed by the here-document's index: the delimiter word of `<<`. */
export const HEREDOC = "\uE001";
/** A `$` that is text, not an expansion (single-quoted or escaped). */
export const LITERAL_DOLLAR = "\uE004";
const LITERAL_DOLLARS = /\$/g;
/** Unquoted `{` and `}` (brace expansion applies to them only; see parse.ts). */
export const OPEN_BRACE_MARK = "\uE002";
export const CLOSE_BRACE_MARK = "\uE003";

export interface ScanResult {
  text: string;
  /** Inner texts of `$(…)` and backticks: command lines. */
  substitutions: string[];
  /** Texts that are not commands but may hold substitutions (arithmetic, `${…}` expansions). */
  expansions: string[];
  heredocs: string[];
  /** Why the line is malformed (unterminated quote, …), or null. */
  problem: string | null;
}

enum Context {
  Substitution = 0,
  Backtick = 1,
  Double = 2,
  Brace = 3,
}

const BACKSLASH = 92;
const SINGLE = 39;
const DOUBLE = 34;
const BACKTICK = 96;
const DOLLAR = 36;
const OPEN = 40;
const CLOSE = 41;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const NEWLINE = 10;
const HASH = 35;
const LESS = 60;
const GREATER = 62;
const SPACE = 32;
const TAB = 9;

/** Characters the top-level loop must look at; everything else is copied in runs. */
const SPECIAL = new Uint8Array(128);
for (const c of "\\'\"`$#\n<>()0123456789 \t;&|{}") SPECIAL[c.charCodeAt(0)] = 1;
/** Characters after which a new word starts. */
const WORD_BREAK = new Uint8Array(128);
for (const c of " \t\n;&|()<>") WORD_BREAK[c.charCodeAt(0)] = 1;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$|^[0-9@*#?$!-]$/;
const NAME_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*/;
const BACKTICK_ESCAPE = /\\([$`\\])/g;
const LEADING_TABS = /^\t+/;

/** Scan budget per input character: nested unterminated constructs cannot make the scan quadratic. */
const STEPS_PER_CHAR = 8;

class Budget {
  steps = 0;
  constructor(readonly limit: number) {}
}

class TooComplex extends Error {}

/**
 * Index of the character closing the construct opened just before `start` (a `)` for `$(`, a backtick,
 * a `"`, a `}`), honouring quotes, escapes and nesting; -1 when it is never closed.
 */
function findClose(s: string, start: number, first: Context, budget: Budget): number {
  const stack: Context[] = [first];
  let i = start;
  const n = s.length;
  while (i < n) {
    if (++budget.steps > budget.limit) throw new TooComplex();
    const c = s.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === BACKSLASH) {
      i += 2;
      continue;
    }
    const opened = c === DOLLAR ? openedByDollar(s.charCodeAt(i + 1)) : undefined;
    if (top === Context.Double) {
      if (c === DOUBLE) {
        stack.pop();
        if (stack.length === 0) return i;
      } else if (opened !== undefined) {
        stack.push(opened);
        i++;
      } else if (c === BACKTICK) {
        stack.push(Context.Backtick);
      }
      i++;
      continue;
    }
    if (c === SINGLE) {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return -1;
      budget.steps += end - i;
      i = end + 1;
      continue;
    }
    if (c === DOLLAR && s.charCodeAt(i + 1) === SINGLE) {
      const end = ansiCEnd(s, i + 2);
      if (end < 0) return -1;
      budget.steps += end - i;
      i = end + 1;
      continue;
    }
    if (c === DOUBLE) stack.push(Context.Double);
    else if (c === BACKTICK) {
      if (top === Context.Backtick) {
        stack.pop();
        if (stack.length === 0) return i;
      } else stack.push(Context.Backtick);
    } else if (opened !== undefined) {
      stack.push(opened);
      i++;
    } else if (top === Context.Substitution && c === OPEN) stack.push(Context.Substitution);
    else if (top === Context.Substitution && c === CLOSE) {
      stack.pop();
      if (stack.length === 0) return i;
    } else if (top === Context.Brace && c === CLOSE_BRACE) {
      stack.pop();
      if (stack.length === 0) return i;
    } else if (top === Context.Substitution && c === HASH && (i === 0 || isWordBreak(s.charCodeAt(i - 1)))) {
      const end = s.indexOf("\n", i);
      if (end < 0) return -1;
      i = end;
      continue;
    }
    i++;
  }
  return -1;
}

/** The construct a `$` followed by `next` opens (`$(`, `${`), if any. */
function openedByDollar(next: number): Context | undefined {
  if (next === OPEN) return Context.Substitution;
  return next === OPEN_BRACE ? Context.Brace : undefined;
}

/** Index of the `'` closing an ANSI-C string `$'…'` whose body starts at `start`, or -1. */
function ansiCEnd(s: string, start: number): number {
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === SINGLE) return i;
  }
  return -1;
}

function isWordBreak(c: number): boolean {
  return c < 128 && WORD_BREAK[c] === 1;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  index: number;
}

class Scanner {
  out = "";
  readonly substitutions: string[] = [];
  readonly expansions: string[] = [];
  readonly heredocs: string[] = [];
  problem: string | null = null;
  private pending: PendingHeredoc[] = [];
  private readonly budget: Budget;

  constructor(private readonly s: string) {
    this.budget = new Budget(s.length * STEPS_PER_CHAR + 4096);
  }

  private fail(problem: string): void {
    this.problem ??= problem;
    this.out += " ; ";
  }

  run(): void {
    const s = this.s;
    const n = s.length;
    let i = 0;
    let wordStart = true;
    while (i < n) {
      if (++this.budget.steps > this.budget.limit) throw new TooComplex();
      const c = s.charCodeAt(i);
      if (c >= 128 || SPECIAL[c] === 0) {
        let j = i + 1;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (d < 128 && SPECIAL[d] === 1) break;
          j++;
        }
        this.out += s.slice(i, j);
        i = j;
        wordStart = false;
        continue;
      }
      switch (c) {
        case BACKSLASH:
          if (s.charCodeAt(i + 1) === NEWLINE) i += 2;
          else {
            this.out += s.charCodeAt(i + 1) === DOLLAR ? `\\${LITERAL_DOLLAR}` : s.slice(i, i + 2);
            i += 2;
            wordStart = false;
          }
          continue;
        case SINGLE: {
          const end = s.indexOf("'", i + 1);
          if (end < 0) {
            this.fail("unterminated quote");
            i++;
            wordStart = true;
          } else {
            this.out += s.slice(i, end + 1).replace(LITERAL_DOLLARS, LITERAL_DOLLAR);
            i = end + 1;
            wordStart = false;
          }
          continue;
        }
        case DOUBLE: {
          const end = findClose(s, i + 1, Context.Double, this.budget);
          if (end < 0) {
            this.fail("unterminated quote");
            i++;
            wordStart = true;
          } else {
            this.out += '"';
            this.copyDouble(i + 1, end);
            this.out += '"';
            i = end + 1;
            wordStart = false;
          }
          continue;
        }
        case BACKTICK:
        case DOLLAR: {
          const next = this.expansion(i);
          if (next < 0) {
            this.out += "$";
            i++;
          } else i = next;
          wordStart = false;
          continue;
        }
        case HASH:
          if (wordStart) {
            const end = s.indexOf("\n", i);
            i = end < 0 ? n : end;
          } else {
            this.out += "\\#";
            i++;
          }
          continue;
        case NEWLINE:
          i = this.readHeredocBodies(i + 1);
          this.out += " ; ";
          wordStart = true;
          continue;
        case LESS:
          if (s.charCodeAt(i + 1) === LESS && s.charCodeAt(i + 2) === LESS) {
            this.out += "<<<";
            i += 3;
            wordStart = true;
            continue;
          }
          if (s.charCodeAt(i + 1) === LESS && s.charCodeAt(i + 2) !== LESS && s.charCodeAt(i + 2) !== OPEN) {
            i = this.heredoc(i);
            wordStart = true;
            continue;
          }
          this.out += "<";
          i++;
          wordStart = true;
          continue;
        case OPEN_BRACE:
          this.out += OPEN_BRACE_MARK;
          i++;
          wordStart = false;
          continue;
        case CLOSE_BRACE:
          this.out += CLOSE_BRACE_MARK;
          i++;
          wordStart = false;
          continue;
        case OPEN:
          if (wordStart && s.charCodeAt(i + 1) === OPEN) {
            // `(( … ))`: an arithmetic command, not commands (a `<<` in it is a shift, not a here-document).
            const end = findClose(s, i + 2, Context.Substitution, this.budget);
            if (end >= 0 && s.charCodeAt(end + 1) === CLOSE) {
              this.expansions.push(s.slice(i + 2, end));
              this.out += " : ";
              i = end + 2;
              wordStart = false;
              continue;
            }
          }
          this.out += "(";
          i++;
          wordStart = true;
          continue;
        default:
          if (c >= 48 && c <= 57 && wordStart) {
            let j = i + 1;
            while (j < n && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
            const after = s.charCodeAt(j);
            if (after === GREATER || after === LESS) {
              // `2>file`: the descriptor number is not an argument.
              i = j;
              continue;
            }
            this.out += s.slice(i, j);
            i = j;
            wordStart = false;
            continue;
          }
          this.out += s[i];
          i++;
          wordStart = isWordBreak(c);
      }
    }
    if (this.pending.length > 0) this.readHeredocBodies(n);
  }

  /**
   * A `$…` or backtick at `i` (outside single quotes): substitutions and arithmetic are extracted,
   * `${…}` kept simple for shell-quote. Returns the index after it, or -1 for a plain `$`.
   */
  private expansion(i: number): number {
    const s = this.s;
    const c = s.charCodeAt(i);
    if (c === BACKTICK) {
      const end = findClose(s, i + 1, Context.Backtick, this.budget);
      if (end < 0) {
        this.fail("unterminated backtick");
        return i + 1;
      }
      this.substitutions.push(s.slice(i + 1, end).replace(BACKTICK_ESCAPE, "$1"));
      this.out += SUBSTITUTION;
      return end + 1;
    }
    const next = s.charCodeAt(i + 1);
    if (next === OPEN) {
      if (s.charCodeAt(i + 2) === OPEN) {
        const inner = findClose(s, i + 3, Context.Substitution, this.budget);
        if (inner >= 0 && s.charCodeAt(inner + 1) === CLOSE) {
          this.expansions.push(s.slice(i + 3, inner));
          this.out += SUBSTITUTION;
          return inner + 2;
        }
      }
      const end = findClose(s, i + 2, Context.Substitution, this.budget);
      if (end < 0) {
        this.fail("unterminated command substitution");
        return i + 2;
      }
      this.substitutions.push(s.slice(i + 2, end));
      this.out += SUBSTITUTION;
      return end + 1;
    }
    if (next === OPEN_BRACE) {
      const end = findClose(s, i + 2, Context.Brace, this.budget);
      if (end < 0) {
        this.fail("unterminated parameter expansion");
        return i + 2;
      }
      const inner = s.slice(i + 2, end);
      if (inner === "") this.fail("bad substitution");
      if (NAME.test(inner)) this.out += `\${${inner}}`;
      else {
        // `${x:-…}`, `${#x}`, …: the value is not known; keep the name, mark it dynamic.
        this.expansions.push(inner);
        const name = NAME_PREFIX.exec(inner);
        this.out += `${name ? `$${name[0]}` : ""}${SUBSTITUTION}`;
      }
      return end + 1;
    }
    if (next === SINGLE) {
      const end = ansiCEnd(s, i + 2);
      if (end < 0) {
        this.fail("unterminated quote");
        return i + 2;
      }
      this.out += s.slice(i, end + 1);
      return end + 1;
    }
    return -1;
  }

  /** Copies the body of a double-quoted string (known to be terminated at `end`), extracting substitutions. */
  private copyDouble(start: number, end: number): void {
    const s = this.s;
    let i = start;
    let run = start;
    while (i < end) {
      const c = s.charCodeAt(i);
      if (c === BACKSLASH) {
        if (s.charCodeAt(i + 1) === NEWLINE) {
          this.out += s.slice(run, i);
          i += 2;
          run = i;
        } else if (s.charCodeAt(i + 1) === DOLLAR) {
          this.out += `${s.slice(run, i)}\\${LITERAL_DOLLAR}`;
          i += 2;
          run = i;
        } else i += 2;
        continue;
      }
      if (
        c === BACKTICK ||
        (c === DOLLAR && (s.charCodeAt(i + 1) === OPEN || s.charCodeAt(i + 1) === OPEN_BRACE))
      ) {
        this.out += s.slice(run, i);
        const next = this.expansion(i);
        i = next < 0 ? i + 1 : Math.min(next, end);
        run = i;
        continue;
      }
      i++;
    }
    this.out += s.slice(run, end);
  }

  /** `<<` or `<<-` at `i`: reads the delimiter word and leaves a placeholder naming the body. */
  private heredoc(i: number): number {
    const s = this.s;
    const n = s.length;
    let j = i + 2;
    const stripTabs = s.charCodeAt(j) === 45;
    if (stripTabs) j++;
    while (j < n && (s.charCodeAt(j) === SPACE || s.charCodeAt(j) === TAB)) j++;
    let delimiter = "";
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c === SINGLE || c === DOUBLE) {
        const end = s.indexOf(s[j], j + 1);
        if (end < 0) break;
        delimiter += s.slice(j + 1, end);
        j = end + 1;
      } else if (c === BACKSLASH && j + 1 < n) {
        delimiter += s[j + 1];
        j += 2;
      } else if (isWordBreak(c)) break;
      else {
        delimiter += s[j];
        j++;
      }
    }
    if (delimiter === "") {
      this.out += "<<";
      return i + 2;
    }
    const index = this.heredocs.length;
    this.heredocs.push("");
    this.pending.push({ delimiter, stripTabs, index });
    this.out += ` << ${HEREDOC}${index} `;
    return j;
  }

  /** At the start of a line: the bodies of the here-documents opened on the previous line. */
  private readHeredocBodies(start: number): number {
    if (this.pending.length === 0) return start;
    const s = this.s;
    let pos = start;
    for (const doc of this.pending) {
      const bodyStart = pos;
      let body: string | null = null;
      while (pos < s.length) {
        if (++this.budget.steps > this.budget.limit) throw new TooComplex();
        const lineEnd = s.indexOf("\n", pos);
        const end = lineEnd < 0 ? s.length : lineEnd;
        const line = s.slice(pos, end);
        const compared = doc.stripTabs ? line.replace(LEADING_TABS, "") : line;
        if (compared === doc.delimiter) {
          body = s.slice(bodyStart, pos);
          pos = lineEnd < 0 ? s.length : lineEnd + 1;
          break;
        }
        pos = lineEnd < 0 ? s.length : lineEnd + 1;
      }
      this.heredocs[doc.index] = body ?? s.slice(bodyStart);
    }
    this.pending = [];
    return pos;
  }
}

/** Scans one command line; null when it is too complex to scan within the budget. */
export function scanCommandLine(text: string): ScanResult | null {
  const scanner = new Scanner(text);
  try {
    scanner.run();
  } catch (error) {
    if (error instanceof TooComplex) return null;
    throw error;
  }
  return {
    text: scanner.out,
    substitutions: scanner.substitutions,
    expansions: scanner.expansions,
    heredocs: scanner.heredocs,
    problem: scanner.problem,
  };
}
