/**
 * Properties of classifyCommand (fast-check): no input throws (speed is `npm run bench -- classify`, never a
 * test's assertion); `X; Y`, `X && Y`, `X || Y` and `X | Y` are never less severe than X or Y; wrapping in
 * `bash -c '…'`, `sudo`, `env`, `nohup`, `time` or an absolute path never lowers the tier; no line with an
 * option its program's list does not know is safe (issue #24). X and Y are well-formed commands (table rows
 * and generated ones): an unfinished fragment such as `echo '` legitimately changes how what follows is read.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROGRAMS as LISTED, type ProgramSpec } from "./harmless";
import { classifyCommand } from "./index";
import { scanCommandLine } from "./scan";
import { ARG_WORDS, PROGRAMS, singleQuote, wellFormedTableCommands } from "./testing/corpus";
import { TABLE } from "./testing/table";
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

describe("an option the program's list does not know is never safe (issue #24)", () => {
  /** Programs whose options matter: every listed one but those whose words are all harmless text. */
  const strict = [...LISTED].filter(([, programSpec]) => !programSpec.anyText);
  const SIMPLE = /^[a-z][\w.-]*(?: [^|;&<>()`$\n]*)?$/;
  /** Safe lines of one listed program: the program alone, and the table's safe simple commands. */
  const safeLines: Array<[string, ProgramSpec]> = [];
  for (const [name, programSpec] of strict) {
    if (classifyCommand(name).tier === "safe") safeLines.push([name, programSpec]);
  }
  for (const [command, tier] of TABLE) {
    const name = command.split(" ")[0];
    const programSpec = LISTED.get(name);
    if (tier === "safe" && SIMPLE.test(command) && programSpec !== undefined && !programSpec.anyText) {
      safeLines.push([command, programSpec]);
    }
  }

  it("has safe lines of most listed programs to start from", () => {
    expect(new Set(safeLines.map(([line]) => line.split(" ")[0])).size).toBeGreaterThan(100);
    for (const [line] of safeLines) expect(classifyCommand(line).tier, line).toBe("safe");
  });

  /** Option words: short, long, long with a value, single-dash words (`find -name`). */
  const optionWord = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9]$/).map((letter) => `-${letter}`),
    fc.stringMatching(/^[a-z][a-z0-9-]{0,14}$/).map((name) => `--${name}`),
    fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,14}$/), fc.stringMatching(/^[a-z0-9/.]{0,8}$/))
      .map(([name, value]) => `--${name}=${value}`),
    fc.stringMatching(/^[a-z][a-z0-9_]{1,10}$/).map((name) => `-${name}`),
  );

  /** An unknown short option also hides in a cluster after a listed flag (`-lQ`, `-Ql`). */
  function clustered(programSpec: ProgramSpec, option: string, variant: number): string {
    const flag = [...programSpec.short].find(([, kind]) => kind === "flag")?.[0];
    if (option.length !== 2 || programSpec.singleDash || flag === undefined || variant === 0) return option;
    return variant === 1 ? `-${flag}${option[1]}` : `-${option[1]}${flag}`;
  }

  function isListed(programSpec: ProgramSpec, option: string): boolean {
    const name = option.includes("=") ? option.slice(0, option.indexOf("=")) : option;
    if (programSpec.words.has(option) || option === "--version" || option === "--help") return true;
    if (programSpec.singleDash || name.startsWith("--")) return programSpec.long.has(name);
    if (programSpec.numeric && /^-\d+$/.test(name)) return true;
    // A cluster: known up to its first letter that takes a value (the rest is that value).
    for (const letter of option.slice(1)) {
      const kind = programSpec.short.get(letter);
      if (kind === undefined) return false;
      if (kind !== "flag") return true;
    }
    return true;
  }

  it("inserted after the program name, or at the end of the line", () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.constantFrom(...safeLines), optionWord, fc.nat(2), fc.boolean())
          .filter(([[, programSpec], option]) => !isListed(programSpec, option)),
        ([[line, programSpec], word, variant, atEnd]) => {
          const option = clustered(programSpec, word, variant);
          const words = line.split(" ");
          // At the end the word is still an option of this program (not of a subcommand, not an operand).
          const end =
            atEnd &&
            !programSpec.stop &&
            typeof programSpec.operands === "string" &&
            !words.includes("--") &&
            words.length > 1;
          const generated = end ? `${line} ${option}` : [words[0], option, ...words.slice(1)].join(" ");
          expect(classifyCommand(generated).tier, generated).not.toBe("safe");
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
