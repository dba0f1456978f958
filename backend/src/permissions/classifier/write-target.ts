/** The verdict for a file a command writes (redirections, `cp` targets, `dd of=`, `curl -o`, …). */
import { isRawDisk, isRootWriteTarget, isSensitivePath } from "./paths";
import { type PathGuard, protectedPathVerdict } from "./protected";
import { type Classification, dangerous, destructive, safe, shown, worse } from "./types";
import { readVerdict, writeVerdict } from "./workspace";

/**
 * A raw disk is destructive; the filesystem root and sensitive files (`.env`, `credentials`, `.ssh`) are
 * dangerous; anything else is an ordinary file write and keeps `fallback`.
 */
export function classifyWriteTarget(target: string, how: string, fallback: Classification): Classification {
  if (isRawDisk(target)) return destructive("raw-disk-write", `raw disk write: ${how} ${shown(target)}`);
  if (isRootWriteTarget(target))
    return worst(fallback, dangerous("root-write", `write to the filesystem root: ${how} ${shown(target)}`));
  if (isSensitivePath(target))
    return worst(
      fallback,
      dangerous("sensitive-file-write", `sensitive file write: ${how} ${shown(target)}`),
    );
  return fallback;
}

function worst(a: Classification, b: Classification): Classification {
  return a.tier === "safe" ? b : a;
}

/** Devices a redirection may write to or read from without touching a file. */
export const HARMLESS_DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);
export const HARMLESS_INPUTS = new Set([
  "/dev/null",
  "/dev/stdin",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
]);
/** Where an output option writes without touching a file: standard output (`-`) and the harmless devices. */
export const HARMLESS_OUTPUTS = new Set(["-", ...HARMLESS_DEVICES]);

/**
 * Files a read command writes through an output-file flag (`curl -o`, `git log --output=`, `sort -o`) or
 * edits in place (`sed -i`): the worst target that is special (raw disk, filesystem root, sensitive file)
 * first, else `plain` (output-file or in-place-edit, dangerous); null when every target is `-` or a
 * harmless device.
 */
export function classifyWrittenFiles(
  targets: readonly string[],
  how: string,
  plain: (target: string) => Classification,
): Classification | null {
  let special: Classification | null = null;
  let ordinary: Classification | null = null;
  for (const target of targets) {
    if (HARMLESS_OUTPUTS.has(target) || target.startsWith("/dev/fd/")) continue;
    const verdict = classifyWriteTarget(target, how, NO_VERDICT);
    if (verdict === NO_VERDICT) ordinary ??= plain(target);
    else special = special === null ? verdict : worse(special, verdict);
  }
  return special ?? ordinary;
}

/** One written file (see classifyWrittenFiles), combined into `result`. */
export function classifyWrittenFile(
  target: string,
  how: string,
  plain: Classification,
  result: Classification,
): Classification {
  const verdict = classifyWrittenFiles([target], how, () => plain);
  return verdict === null ? result : worse(result, verdict);
}

const NO_VERDICT: Classification = Object.freeze(safe("none", "none"));

export function outputFile(how: string, target: string): Classification {
  return dangerous("output-file", `output file: ${how} ${shown(target)}`);
}

export function inPlaceEdit(how: string, target: string): Classification {
  return dangerous("in-place-edit", `in-place edit: ${how} ${shown(target)}`);
}

/** Files edited in place: dangerous (or worse, for the filesystem root or a raw disk). */
export function editedInPlace(how: string, files: readonly string[]): Classification {
  return (
    classifyWrittenFiles(files, how, (file) => inPlaceEdit(how, file)) ?? inPlaceEdit(how, files.join(" "))
  );
}

/**
 * Files a tool writes, the worst first: a raw disk is destructive; a protected path, a sensitive file, the
 * filesystem root and anything outside the agent's workspace (or a configuration file in it, workspace.ts)
 * are dangerous; else a safe file write. Relative paths are the workspace's (OpenClaw resolves them there).
 */
export function classifyWrittenPaths(paths: readonly string[], guard: PathGuard): Classification {
  let result: Classification = safe("file-write", `file write: ${shown(paths[0])}`);
  for (const path of paths) {
    if (isRawDisk(path)) return destructive("raw-disk-write", `raw disk write: ${shown(path)}`);
    const special =
      protectedPathVerdict(path, guard) ??
      (isSensitivePath(path)
        ? dangerous("sensitive-file-write", `sensitive file write: ${shown(path)}`)
        : isRootWriteTarget(path)
          ? dangerous("root-write", `write to the filesystem root: ${shown(path)}`)
          : writeVerdict(path, "", guard.workspace.cwd, guard.workspace));
    if (special !== null) result = worse(result, special);
  }
  return result;
}

/**
 * A file a tool reads (`read`, `memory_get`, `image`, `pdf`): dangerous when it is protected or outside the
 * agent's own directory (relative paths are the workspace's); null when it is the agent's own.
 */
export function classifyReadPath(path: string, guard: PathGuard): Classification | null {
  return (
    protectedPathVerdict(path, guard) ?? readVerdict(path, "", guard.workspace.cwd, guard.workspace, false)
  );
}
