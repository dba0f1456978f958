/** Permission changes to 777 (any spelling) and ownership changes are destructive. */
import { register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown } from "../types";
import { classifyWriteTarget } from "../write-target";

/** chmod: to 777 (any spelling) is destructive; other modes are file metadata writes. */
const OCTAL = /^[0-7]{1,4}$/;
const SYMBOLIC_CLAUSE = /^([ugoa]*)([-+=])([rwxXst]*)$/;
const CHMOD_FLAGS = new Set(
  words(`
  -R -c -f -v -H -L -P --recursive --changes --silent --quiet --verbose --preserve-root
  --no-preserve-root
`),
);

export function isMode777(mode: string): boolean {
  if (OCTAL.test(mode)) return mode.length >= 3 && mode.endsWith("777");
  for (const clause of mode.split(",")) {
    const match = SYMBOLIC_CLAUSE.exec(clause);
    if (!match) continue;
    const who = match[1];
    const everyone =
      who === "" || who.includes("a") || (who.includes("u") && who.includes("g") && who.includes("o"));
    const perms = match[3];
    if (
      everyone &&
      match[2] !== "-" &&
      perms.includes("r") &&
      perms.includes("w") &&
      (perms.includes("x") || perms.includes("X"))
    ) {
      return true;
    }
  }
  return false;
}

function isSetId(mode: string): boolean {
  if (OCTAL.test(mode)) return mode.length === 4 && (Number(mode[0]) & 6) !== 0;
  for (const clause of mode.split(",")) {
    const match = SYMBOLIC_CLAUSE.exec(clause);
    if (match && match[2] !== "-" && match[3].includes("s")) return true;
  }
  return false;
}

register(["chmod"], (inv) => {
  let mode: string | null = null;
  let reference = false;
  const targets: string[] = [];
  for (let i = 0; i < inv.args.length; i++) {
    const arg = inv.args[i];
    if (CHMOD_FLAGS.has(arg)) continue;
    if (arg.startsWith("--reference")) {
      reference = true;
      if (!arg.includes("=")) i++;
      continue;
    }
    // Anything else, `-w` and `-rwx` included, is the mode first and then the files.
    if (mode === null && !reference) mode = arg;
    else targets.push(arg);
  }
  const shownMode = mode ?? "--reference";
  if (mode !== null && isMode777(mode)) {
    return destructive(
      "chmod-777",
      `permission change to 777: chmod ${shown(`${mode} ${targets.join(" ")}`)}`,
    );
  }
  let result: Classification =
    mode !== null && isSetId(mode)
      ? dangerous("permission-change", `permission change: chmod ${mode} (setuid/setgid)`)
      : safe("file-write", `file write: chmod ${shown(shownMode)}`);
  for (const target of targets) result = classifyWriteTarget(target, "chmod", result);
  return result;
});

register(["chown", "chgrp", "lchown", "chattr"], (inv) =>
  inv.name === "chattr"
    ? dangerous("permission-change", `permission change: chattr ${shown(inv.args.join(" "))}`)
    : destructive("ownership-change", `ownership change: ${inv.name}`),
);
