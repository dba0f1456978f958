/**
 * Commands that run another command: privilege escalation (sudo, su, doas, pkexec: destructive themselves,
 * and the wrapped command is classified too; the most severe wins) and transparent prefixes (env, nohup,
 * time, nice, timeout, exec, command, xargs, …) whose verdict is the wrapped command's.
 */
import { optionSpec, parseArgs } from "../options";
import { type Invocation, register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";
import { environmentDump } from "./environment";

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const NICE_NUMBER = /^-\d+$/;

function withoutAssignments(words: readonly string[]): readonly string[] {
  let i = 0;
  while (i < words.length && ASSIGNMENT.test(words[i])) i++;
  return i === 0 ? words : words.slice(i);
}

function escalation(inv: Invocation, inner: Classification | null): Classification {
  const verdict = destructive("privilege-escalation", `privilege escalation: ${inv.name}`);
  return inner === null ? verdict : worse(verdict, inner);
}

const sudoSpec = optionSpec(
  "ugpCDrtTURh",
  words(`
  --user --group --prompt --close-from --chdir --role --type --command-timeout --other-user
  --chroot --host
`),
  { stopAtPositional: true },
);
register(["sudo", "sudoedit"], (inv) => {
  // `-h` alone is help; with a value it names a host: only the value form matters here.
  const parsed = parseArgs(inv.args, sudoSpec);
  const command = withoutAssignments(parsed.rest);
  return escalation(inv, command.length > 0 && inv.name === "sudo" ? inv.argv(command) : null);
});

const doasSpec = optionSpec("uC", [], { stopAtPositional: true });
register(["doas"], (inv) => {
  const command = parseArgs(inv.args, doasSpec).rest;
  return escalation(inv, command.length > 0 ? inv.argv(command) : null);
});

const pkexecSpec = optionSpec("", ["--user"], { stopAtPositional: true });
register(["pkexec"], (inv) => {
  const command = parseArgs(inv.args, pkexecSpec).rest;
  return escalation(inv, command.length > 0 ? inv.argv(command) : null);
});

const suSpec = optionSpec("cgGsw", [
  "--command",
  "--session-command",
  "--group",
  "--supp-group",
  "--shell",
  "--whitelist-environment",
]);
register(["su", "runuser"], (inv) => {
  const parsed = parseArgs(inv.args, suSpec);
  let inner: Classification | null = null;
  for (const option of parsed.options) {
    if (
      (option.name === "-c" || option.name === "--command" || option.name === "--session-command") &&
      option.value !== null
    ) {
      inner = inner === null ? inv.line(option.value) : worse(inner, inv.line(option.value));
    }
  }
  // runuser -u USER -- COMMAND
  const dashDash = inv.args.indexOf("--");
  if (inv.name === "runuser" && dashDash >= 0 && dashDash + 1 < inv.args.length) {
    const wrapped = inv.argv(inv.args.slice(dashDash + 1));
    inner = inner === null ? wrapped : worse(inner, wrapped);
  }
  return escalation(inv, inner);
});

register(["visudo", "setcap", "newgrp", "sg"], (inv) => escalation(inv, null));

/** usermod adding a user to an administrators' group grants root. */
const ADMIN_GROUPS = new Set(["sudo", "wheel", "admin", "root", "adm", "docker"]);
const usermodSpec = optionSpec("cdeEfgGlLpsuUZ", [
  "--groups",
  "--gid",
  "--home",
  "--shell",
  "--login",
  "--comment",
]);
register(["usermod", "gpasswd"], (inv) => {
  const parsed = parseArgs(inv.args, usermodSpec);
  for (const option of parsed.options) {
    const groups =
      option.name === "-G" || option.name === "--groups" || option.name === "-g" || option.name === "--gid";
    if (groups && option.value?.split(",").some((group) => ADMIN_GROUPS.has(group))) {
      return escalation(inv, null);
    }
  }
  if (inv.name === "gpasswd" && inv.args.some((arg) => ADMIN_GROUPS.has(arg))) return escalation(inv, null);
  return dangerous("account-change", `account change: ${inv.name}`);
});

/** A transparent prefix: the verdict is the wrapped command's; alone it is `whenAlone`. */
function transparent(inv: Invocation, command: readonly string[], whenAlone: Classification): Classification {
  return command.length > 0 ? inv.argv(command) : whenAlone;
}

const envSpec = optionSpec(
  "uCSP",
  ["--unset", "--chdir", "--split-string", "--block-signal", "--default-signal", "--ignore-signal"],
  {
    stopAtPositional: true,
  },
);
register(["env"], (inv) => {
  const parsed = parseArgs(inv.args, envSpec);
  for (const option of parsed.options) {
    if ((option.name === "-S" || option.name === "--split-string") && option.value !== null) {
      return inv.line([option.value, ...parsed.rest].join(" "));
    }
  }
  // Without a command, env prints the whole environment (the agent's gateway token included).
  return transparent(
    inv,
    withoutAssignments(parsed.rest),
    environmentDump(`env ${inv.args.join(" ")}`.trim()),
  );
});

const simplePrefix = optionSpec("", [], { stopAtPositional: true });
register(
  words(`
  nohup builtin unbuffer setsid catchsegv chronic ifne proxychains proxychains4 torsocks
  caffeinate arch-run
`),
  (inv) =>
    transparent(
      inv,
      parseArgs(inv.args, simplePrefix).rest,
      safe("shell-builtin", `shell builtin: ${inv.name}`),
    ),
);

const timeSpec = optionSpec("fo", ["--format", "--output"], { stopAtPositional: true });
// `time` is a shell keyword: what follows is a whole command, assignments included.
register(["time", "gtime"], (inv) =>
  transparent(
    inv,
    withoutAssignments(parseArgs(inv.args, timeSpec).rest),
    safe("shell-builtin", "shell builtin: time"),
  ),
);

const niceSpec = optionSpec("n", ["--adjustment"], { stopAtPositional: true });
register(["nice"], (inv) => {
  const args = inv.args[0] !== undefined && NICE_NUMBER.test(inv.args[0]) ? inv.args.slice(1) : inv.args;
  return transparent(inv, parseArgs(args, niceSpec).rest, safe("system-info", "system info: nice"));
});

const timeoutSpec = optionSpec("sk", ["--signal", "--kill-after"], { stopAtPositional: true });
register(["timeout", "gtimeout"], (inv) => {
  const rest = parseArgs(inv.args, timeoutSpec).rest;
  return transparent(inv, rest.slice(1), safe("shell-builtin", "shell builtin: timeout"));
});

const execSpec = optionSpec("a", [], { stopAtPositional: true });
register(["exec"], (inv) =>
  transparent(inv, parseArgs(inv.args, execSpec).rest, safe("shell-builtin", "shell builtin: exec")),
);

register(["command"], (inv) => {
  const parsed = parseArgs(inv.args, simplePrefix);
  if (parsed.options.some((option) => option.name === "-v" || option.name === "-V")) {
    return safe("system-info", "system info: command -v");
  }
  return transparent(inv, parsed.rest, safe("shell-builtin", "shell builtin: command"));
});

const stdbufSpec = optionSpec("ioe", ["--input", "--output", "--error"], { stopAtPositional: true });
register(["stdbuf"], (inv) =>
  transparent(inv, parseArgs(inv.args, stdbufSpec).rest, safe("shell-builtin", "shell builtin: stdbuf")),
);

const ioniceSpec = optionSpec("cnpPu", ["--class", "--classdata", "--pid", "--pgid", "--uid"], {
  stopAtPositional: true,
});
register(["ionice"], (inv) =>
  transparent(inv, parseArgs(inv.args, ioniceSpec).rest, safe("system-info", "system info: ionice")),
);

const tasksetSpec = optionSpec("", [], { stopAtPositional: true });
register(["taskset"], (inv) => {
  const rest = parseArgs(inv.args, tasksetSpec).rest;
  return transparent(inv, rest.slice(1), safe("system-info", "system info: taskset"));
});

const flockSpec = optionSpec("cwE", ["--command", "--timeout", "--wait", "--conflict-exit-code"], {
  stopAtPositional: true,
});
register(["flock"], (inv) => {
  const parsed = parseArgs(inv.args, flockSpec);
  for (const option of parsed.options) {
    if ((option.name === "-c" || option.name === "--command") && option.value !== null)
      return inv.line(option.value);
  }
  return transparent(inv, parsed.rest.slice(1), safe("shell-builtin", "shell builtin: flock"));
});

register(["busybox", "toybox"], (inv) =>
  transparent(inv, inv.args, safe("system-info", `system info: ${inv.name}`)),
);

/**
 * xargs: the command after its options (default `echo`), run with arguments read from input — classified
 * with one more, computed, argument (so `… | xargs curl` is a network command with a computed value).
 */
const STDIN_WORDS = "$(stdin)";
const xargsSpec = optionSpec(
  "ILnPdEsa",
  words(`
  --replace --max-lines --max-args --max-procs --delimiter --eof --max-chars --arg-file
  --process-slot-var
`),
  { stopAtPositional: true },
);
register(["xargs", "parallel"], (inv) => {
  const rest = parseArgs(inv.args, xargsSpec).rest;
  if (inv.name === "parallel") {
    const separator = rest.findIndex((word) => word === ":::" || word === "::::" || word === ":::+");
    const command = separator < 0 ? rest : rest.slice(0, separator);
    return command.length > 0
      ? inv.line([...command, `'${STDIN_WORDS}'`].join(" "))
      : safe("text-processing", "text processing: parallel");
  }
  return rest.length > 0
    ? inv.argv([...rest, STDIN_WORDS])
    : safe("text-processing", "text processing: xargs echo");
});

/** watch runs its command through `sh -c`. */
const watchSpec = optionSpec("nqd", ["--interval", "--differences"], { stopAtPositional: true });
register(["watch"], (inv) => {
  const rest = parseArgs(inv.args, watchSpec).rest;
  return rest.length > 0 ? inv.line(rest.join(" ")) : safe("system-info", "system info: watch");
});

/** Tracers and debuggers run the program they are given. */
const traceSpec = optionSpec("abeEIoOpPsSuUX", ["--output", "--trace", "--signal", "--attach"], {
  stopAtPositional: true,
});
register(["strace", "ltrace", "valgrind", "gdb", "lldb", "perf"], (inv) => {
  const rest = parseArgs(inv.args, traceSpec).rest;
  const own = dangerous("code-execution", `code execution: ${inv.name} ${shown(rest.join(" "))}`);
  return rest.length > 0 ? worse(own, inv.argv(inv.name === "perf" ? rest.slice(1) : rest)) : own;
});
