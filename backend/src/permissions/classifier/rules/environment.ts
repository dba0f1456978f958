/**
 * Environment dumps (issue #12): an agent's environment holds its gateway token, so printing all of it is
 * dangerous — `printenv`, `env` without a command (wrappers.ts), `set`, `export -p`, `declare -x`,
 * `ps e` (other processes' environments), jq's `env`/`$ENV`, awk's `ENVIRON` (basic.ts) and
 * `/proc/<pid>/environ` (protected.ts). Printing one named variable stays what it was.
 */
import { optionSpec, parseArgs } from "../options";
import { register, words } from "../registry";
import { type Classification, dangerous, safe, shown } from "../types";

export function environmentDump(what: string): Classification {
  return dangerous("environment-dump", `environment dump: ${shown(what)}`);
}

const printenvSpec = optionSpec();
register(["printenv"], (inv) =>
  parseArgs(inv.args, printenvSpec).positionals.length === 0
    ? environmentDump("printenv")
    : safe("system-info", "system info: printenv"),
);

/** `set` alone prints every variable; with options or arguments it sets shell options or `$@`. */
register(["set"], (inv) =>
  inv.args.length === 0 ? environmentDump("set") : safe("shell-builtin", "shell builtin: set"),
);

/**
 * `export` (or `export -p`) alone prints every exported variable; with names it puts them in the
 * environment of every later command (issue #24: never safe).
 */
register(["export"], (inv) =>
  inv.args.every((arg) => arg === "-p")
    ? environmentDump(`export ${inv.args.join(" ")}`.trim())
    : dangerous("environment-assignment", `environment assignment: export ${shown(inv.args.join(" "))}`),
);

/** `declare`/`typeset` without names prints variables (`-x`: the environment); `-f`/`-F` list functions. */
register(["declare", "typeset"], (inv) => {
  const names = inv.args.filter((arg) => !arg.startsWith("-") && !arg.startsWith("+"));
  const functions = inv.args.some((arg) => /^-[a-zA-Z]*[fF]/.test(arg));
  return names.length === 0 && !functions
    ? environmentDump(`${inv.name} ${inv.args.join(" ")}`.trim())
    : safe("shell-builtin", `shell builtin: ${inv.name}`);
});

/**
 * ps: system info, unless a BSD-style option word (no dash: `ps auxe`, `ps eww`) has `e`, which adds
 * each process's environment.
 */
const psSpec = optionSpec(
  "CGgkOopqsTtUu",
  words(`
  --cols --columns --format --group --Group --lines --pid --ppid --quick-pid --rows --sid --sort
  --tty --user --User --width --context
`),
);
const BSD_OPTIONS = /^[aAcefhHjlLmMnrsSTuvwxXZ]+$/;
register(["ps"], (inv) => {
  for (const word of parseArgs(inv.args, psSpec).positionals) {
    if (BSD_OPTIONS.test(word) && word.includes("e")) return environmentDump(`ps ${word}`);
  }
  return safe("system-info", "system info: ps");
});

/** jq and its clones: text processing, unless the program reads the environment (`env`, `$ENV`). */
const JQ_TWO_VALUES = new Set(["--arg", "--argjson", "--slurpfile", "--rawfile"]);
const JQ_ONE_VALUE = new Set(["--indent", "-L", "--library-path"]);
const JQ_ENVIRONMENT = /\$ENV\b|(?<![\w$.])env\b/;
register(["jq", "gojq", "jaq"], (inv) => {
  const args = inv.args;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (JQ_TWO_VALUES.has(arg)) i += 2;
    else if (JQ_ONE_VALUE.has(arg)) i += 1;
    else if (arg === "-f" || arg === "--from-file") {
      return environmentDump(`${inv.name} ${arg} (a program read from a file may read the environment)`);
    } else if (arg === "--") {
      const program = args[i + 1] ?? "";
      return JQ_ENVIRONMENT.test(program) ? environmentDump(`${inv.name} ${program}`) : jqSafe(inv.name);
    } else if (!arg.startsWith("-") || arg === "-") {
      return JQ_ENVIRONMENT.test(arg) ? environmentDump(`${inv.name} ${arg}`) : jqSafe(inv.name);
    }
  }
  return jqSafe(inv.name);
});

function jqSafe(name: string): Classification {
  return safe("text-processing", `text processing: ${name}`);
}
