/**
 * Properties of classifyCommand (fast-check):
 * - no input throws (the issue's 5 ms bound per command is a speed figure, not a test: `npm run bench --
 *   classify` reports p50/p99/max per command over a 10,000-command corpus; tests never assert on time);
 * - `X; Y`, `X && Y`, `X || Y`, `X | Y` are never less severe than X or Y;
 * - wrapping a command in `bash -c '…'`, `sudo`, `env`, `nohup`, `time` or an absolute path never lowers
 *   its tier.
 * X and Y are well-formed commands: table rows and generated program + argument commands (an unfinished
 * fragment such as `echo '` or `ls #` legitimately changes how the text after it is read).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyCommand } from "./index";
import { scanCommandLine } from "./scan";
import { ARG_WORDS, PROGRAMS, singleQuote, wellFormedTableCommands } from "./testing/corpus";
import { TIER_RANK } from "./types";

const rank = (command: string) => TIER_RANK[classifyCommand(command).tier];
const RUNS = 500;

const SHELL_TOKENS = [
  "'",
  '"',
  "$",
  "(",
  ")",
  "`",
  ";",
  "|",
  "&",
  "\n",
  " ",
  " ",
  " ",
  "\\",
  "<",
  ">",
  "{",
  "}",
  "#",
  "*",
  "=",
  "-",
  "$(",
  "${",
  "$((",
  "))",
  "<<",
  "<<<",
  "EOF",
  "2>&1",
  "&&",
  "||",
  "~",
  "/",
  "-rf",
  "-c",
  "sudo",
  "bash",
  "sh",
  "rm",
  "git",
  "push",
  "--force",
  "curl",
  "-X",
  "POST",
  "echo",
  "xargs",
  "find",
  "-exec",
  "docker",
  "kubectl",
  "psql",
  "DROP TABLE",
  "env",
  "eval",
  "cd",
  "npm",
  "install",
  "a",
  "b",
  "x=1",
  "\t",
  "$'",
  "\\n",
];

const shellLike = fc
  .array(fc.constantFrom(...SHELL_TOKENS), { minLength: 0, maxLength: 80 })
  .map((tokens) => tokens.join(""));

const simpleCommand = fc
  .tuple(fc.constantFrom(...PROGRAMS), fc.array(fc.constantFrom(...ARG_WORDS), { maxLength: 5 }))
  .map(([program, args]) => [program, ...args].join(" "));

const wellFormed = wellFormedTableCommands((command) => scanCommandLine(command)?.problem !== null);
const command = fc.oneof(simpleCommand, fc.constantFrom(...wellFormed));
/** Table rows that start with a program name (what a prefix wraps). */
const PROGRAM_FIRST = /^[a-z][a-z0-9._-]*(?:\s|$)/;
const KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "until",
  "case",
  "function",
  "select",
  "then",
  "do",
  "coproc",
]);
const startsWithProgram = wellFormed.filter(
  (row) => PROGRAM_FIRST.test(row) && !KEYWORDS.has(row.split(/\s/)[0]),
);
const wrappable = fc.oneof(simpleCommand, fc.constantFrom(...startsWithProgram));

/** Classifies the input; a throw fails the property. */
function classifies(input: string): boolean {
  const { tier } = classifyCommand(input);
  return tier === "safe" || tier === "dangerous" || tier === "destructive";
}

describe("classifyCommand never throws", () => {
  it("on shell-like strings", () => {
    fc.assert(
      fc.property(shellLike, (input) => {
        expect(classifies(input)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (input) => {
        expect(classifies(input)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it("on compositions of real commands", () => {
    fc.assert(
      fc.property(
        fc.array(command, { minLength: 1, maxLength: 8 }),
        fc.constantFrom("; ", " | ", " && ", "\n"),
        (parts, joiner) => {
          expect(classifies(parts.join(joiner))).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("returns a tier, a rule and a reason for every input", () => {
    fc.assert(
      fc.property(shellLike, (input) => {
        const result = classifyCommand(input);
        expect(["safe", "dangerous", "destructive"]).toContain(result.tier);
        expect(result.rule.length).toBeGreaterThan(0);
        expect(result.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
  });
});

describe("combining commands never lowers the tier", () => {
  it.each(["; ", " && ", " || ", " | "])("X%sY is at least as severe as X and as Y", (joiner) => {
    fc.assert(
      fc.property(command, command, (x, y) => {
        const combined = rank(`${x}${joiner}${y}`);
        expect(combined).toBeGreaterThanOrEqual(rank(x));
        expect(combined).toBeGreaterThanOrEqual(rank(y));
      }),
      { numRuns: RUNS },
    );
  });
});

describe("wrapping a command never lowers the tier", () => {
  it("bash -c '…' (any well-formed line)", () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 3 }), (parts) => {
        const line = parts.join("; ");
        expect(rank(`bash -c ${singleQuote(line)}`)).toBeGreaterThanOrEqual(rank(line));
      }),
      { numRuns: RUNS },
    );
  });

  it("sudo is privilege escalation: destructive whatever it runs", () => {
    fc.assert(
      fc.property(wrappable, (x) => {
        expect(rank(`sudo ${x}`)).toBeGreaterThanOrEqual(rank(x));
        expect(classifyCommand(`sudo ${x}`).tier).toBe("destructive");
      }),
      { numRuns: RUNS },
    );
  });

  it.each(["env ", "nohup ", "time ", "/usr/bin/"])("%s<command>", (prefix) => {
    fc.assert(
      fc.property(wrappable, (x) => {
        expect(rank(`${prefix}${x}`)).toBeGreaterThanOrEqual(rank(x));
      }),
      { numRuns: RUNS },
    );
  });
});
