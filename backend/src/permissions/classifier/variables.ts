/**
 * Variables (issue #24). An environment assignment changes what a harmless-looking command runs (`PATH`,
 * `LD_PRELOAD`, `BASH_ENV`, `GIT_CONFIG_*`, `GIT_SSH_COMMAND`, `LESSOPEN`, `HOME`, a proxy, a pager), so only
 * language, time zone and terminal settings are harmless. A plain shell variable is harmless when no program
 * reads it: lower-case names (programs read upper case), except the proxies curl and wget read and the names
 * zsh ties to PATH-like variables.
 */

const HARMLESS_VARIABLES = new Set(["LANG", "TZ", "NO_COLOR", "TERM"]);

/** `LANG`, `LC_*`, `TZ`, `NO_COLOR`, `TERM`. */
export function isHarmlessVariable(name: string): boolean {
  return HARMLESS_VARIABLES.has(name) || name.startsWith("LC_");
}

const SHELL_VARIABLE = /^[a-z_][a-z0-9_]*$/;
const READ_LOWER_CASE = new Set(["path", "cdpath", "fpath", "manpath", "module_path", "mailpath", "psvar"]);

/** A variable of the shell only: harmless to set without exporting it. */
export function isShellVariable(name: string): boolean {
  return (
    isHarmlessVariable(name) ||
    (SHELL_VARIABLE.test(name) && !name.includes("proxy") && !READ_LOWER_CASE.has(name))
  );
}

const ASSIGNED_NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=/;

/** The variable a `NAME=value` word assigns, or null when it is not an assignment. */
export function assignedName(word: string): string | null {
  const match = ASSIGNED_NAME.exec(word);
  return match === null ? null : match[1];
}
