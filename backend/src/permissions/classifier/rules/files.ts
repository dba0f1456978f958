/**
 * File operations: deletion (rm and friends; recursive deletion of a root-like target is destructive) and
 * ordinary file writes (safe unless they target the filesystem root, a raw disk or a sensitive file).
 */
import { optionSpec, parseArgs } from "../options";
import { isRawDisk, isRootLikeDeleteTarget } from "../paths";
import { type Invocation, register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";
import {
  classifyWriteTarget,
  classifyWrittenFile,
  classifyWrittenFiles,
  editedInPlace,
  outputFile,
} from "../write-target";
import { isMode777 } from "./ownership";

/** `*`, `.`, `./*`: everything in the working directory. */
const EVERYTHING_HERE = new Set(["*", ".", "./", "./*", ".*", "**", "./**", "./.", "{*,.*}", "* .*"]);

function rootLike(target: string, inv: Invocation): boolean {
  return isRootLikeDeleteTarget(target) || (inv.cwdRootLike && EVERYTHING_HERE.has(target));
}

function rootDelete(target: string, inv?: Invocation): Classification {
  const where =
    inv?.cwdRootLike && EVERYTHING_HERE.has(target) ? " in / or the home directory (after cd)" : "";
  return destructive("recursive-root-delete", `recursive delete of ${shown(target)}${where}`);
}

const rmSpec = optionSpec("", []);
register(["rm"], (inv) => {
  const parsed = parseArgs(inv.args, rmSpec);
  let recursive = false;
  for (const option of parsed.options) {
    if (option.name === "-r" || option.name === "-R" || option.name === "--recursive") recursive = true;
    if (option.name === "--no-preserve-root") return rootDelete("/ (--no-preserve-root)");
  }
  if (recursive)
    for (const target of parsed.positionals) if (rootLike(target, inv)) return rootDelete(target, inv);
  return dangerous("file-deletion", `file deletion: rm ${shown(parsed.positionals.join(" "))}`);
});

register(["rimraf", "del", "del-cli", "trash", "rmtrash"], (inv) => {
  const targets = inv.args.filter((arg) => !arg.startsWith("-"));
  for (const target of targets) if (rootLike(target, inv)) return rootDelete(target, inv);
  return dangerous("file-deletion", `file deletion: ${inv.name} ${shown(targets.join(" "))}`);
});

register(["shred", "wipe", "srm", "unlink"], (inv) => {
  for (const arg of inv.args) {
    if (isRawDisk(arg)) return destructive("raw-disk-write", `raw disk write: ${inv.name} ${shown(arg)}`);
  }
  return dangerous("file-deletion", `file deletion: ${inv.name}`);
});

/** find: read-only unless it deletes (`-delete`) or runs commands (`-exec`, `-ok`), or writes (`-fprint`). */
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_WRITE = new Set(["-fprint", "-fprint0", "-fprintf", "-fls"]);
const DELETERS = new Set(["rm", "shred", "unlink", "rimraf", "srm"]);
register(["find", "gfind"], (inv) => {
  const args = inv.args;
  const starts: string[] = [];
  let i = 0;
  // Leading -H -L -P -D x -Ox, then the start paths up to the first expression word.
  while (
    i < args.length &&
    (args[i] === "-H" || args[i] === "-L" || args[i] === "-P" || args[i].startsWith("-O"))
  )
    i++;
  if (args[i] === "-D") i += 2;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith("-") || arg === "(" || arg === "!" || arg === ")") break;
    starts.push(arg);
  }
  const rootStart = starts.some((start) => rootLike(start, inv)) || (starts.length === 0 && inv.cwdRootLike);
  let result: Classification = safe("read-only-file", "read-only file: find");
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-delete") {
      if (rootStart) return rootDelete(`${starts.join(" ") || "."} (find -delete)`);
      result = worse(result, dangerous("file-deletion", "file deletion: find -delete"));
    } else if (FIND_EXEC.has(arg)) {
      let end = i + 1;
      while (end < args.length && args[end] !== ";" && args[end] !== "+") end++;
      const words = args.slice(i + 1, end);
      if (rootStart && words[0] !== undefined && DELETERS.has(baseName(words[0]))) {
        return rootDelete(`${starts.join(" ") || "."} (find ${arg} ${words[0]})`);
      }
      result = worse(result, inv.argv(words));
      i = end;
    } else if (FIND_WRITE.has(arg) && i + 1 < args.length) {
      const target = args[i + 1];
      result = classifyWrittenFile(target, `find ${arg}`, outputFile(`find ${arg}`, target), result);
      i++;
    }
  }
  return result;
});

register(["fd", "fdfind"], (inv) => {
  const index = inv.args.findIndex(
    (arg) => arg === "-x" || arg === "--exec" || arg === "-X" || arg === "--exec-batch",
  );
  if (index < 0) return safe("read-only-file", `read-only file: ${inv.name}`);
  return inv.argv(inv.args.slice(index + 1));
});

function baseName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1).toLowerCase();
}

/** Ordinary file writes; `targets` picks the files written. */
function fileWrite(
  names: readonly string[],
  spec: ReturnType<typeof optionSpec>,
  targets: (positionals: string[], options: ReturnType<typeof parseArgs>["options"]) => string[],
) {
  register(names, (inv) => {
    const parsed = parseArgs(inv.args, spec);
    let result: Classification = safe("file-write", `file write: ${inv.name}`);
    for (const option of parsed.options) {
      if (
        (option.name === "-m" || option.name === "--mode") &&
        option.value !== null &&
        isMode777(option.value)
      ) {
        return destructive("chmod-777", `permission change to 777: ${inv.name} -m ${option.value}`);
      }
      if (
        inv.name === "install" &&
        (option.name === "-o" ||
          option.name === "--owner" ||
          option.name === "-g" ||
          option.name === "--group")
      ) {
        return destructive("ownership-change", `ownership change: install ${option.name}`);
      }
    }
    for (const target of targets(parsed.positionals, parsed.options)) {
      result = classifyWriteTarget(target, inv.name, result);
    }
    return result;
  });
}

const all = (positionals: string[]) => positionals;
function lastOrTargetDirectory(
  positionals: string[],
  options: ReturnType<typeof parseArgs>["options"],
): string[] {
  for (const option of options) {
    if ((option.name === "-t" || option.name === "--target-directory") && option.value !== null)
      return [option.value];
  }
  return positionals.length > 1 ? [positionals[positionals.length - 1]] : positionals;
}

fileWrite(["touch"], optionSpec("dtr", ["--date", "--reference"]), all);
fileWrite(["mkdir", "rmdir"], optionSpec("m", ["--mode", "--context"]), all);
fileWrite(["truncate"], optionSpec("sr", ["--size", "--reference"]), all);
fileWrite(["tee"], optionSpec("", ["--output-error"]), all);
fileWrite(["mktemp"], optionSpec("pt", ["--tmpdir", "--suffix"]), () => []);
fileWrite(["cp", "gcp"], optionSpec("tS", ["--target-directory", "--suffix"]), lastOrTargetDirectory);
fileWrite(["ln"], optionSpec("tS", ["--target-directory", "--suffix"]), lastOrTargetDirectory);
fileWrite(
  ["install"],
  optionSpec("tSmogC", ["--target-directory", "--suffix", "--mode", "--owner", "--group"]),
  lastOrTargetDirectory,
);
fileWrite(["mv", "gmv"], optionSpec("tS", ["--target-directory", "--suffix"]), (positionals, options) => [
  ...positionals,
  ...options.filter((o) => o.name === "-t" || o.name === "--target-directory").map((o) => o.value ?? ""),
]);
fileWrite(
  words("gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 compress uncompress"),
  optionSpec("S", ["--suffix"]),
  all,
);
/** patch edits the files named in the patch, in place (`-o FILE`: writes that file instead). */
const patchSpec = optionSpec("pdiorDBVYzFg", [
  "--directory",
  "--input",
  "--output",
  "--strip",
  "--reject-file",
]);
register(["patch"], (inv) => {
  const parsed = parseArgs(inv.args, patchSpec);
  if (parsed.options.some((o) => o.name === "--dry-run"))
    return safe("read-only-file", "read-only file: patch --dry-run");
  const outputs = parsed.options.filter(
    (o) => (o.name === "-o" || o.name === "--output") && o.value !== null,
  );
  if (outputs.length > 0) {
    const targets = outputs.map((o) => o.value ?? "");
    return (
      classifyWrittenFiles(targets, "patch -o", (t) => outputFile("patch -o", t)) ??
      safe("text-processing", "text processing: patch -o -")
    );
  }
  const where = parsed.options.find((o) => (o.name === "-d" || o.name === "--directory") && o.value !== null);
  const files = where?.value ? [where.value] : parsed.positionals.slice(0, 1);
  return editedInPlace("patch", files.length > 0 ? files : ["(the patched files)"]);
});
fileWrite(
  ["split", "csplit"],
  optionSpec("abClnt", ["--suffix-length", "--bytes", "--lines", "--line-bytes", "--number"]),
  (positionals) => positionals.slice(1),
);
fileWrite(["zip", "7z", "7za", "rar"], optionSpec("", []), (positionals) => positionals.slice(0, 1));

/** unzip: extracts into `-d DIR` (or the working directory). */
register(["unzip"], (inv) => {
  const index = inv.args.indexOf("-d");
  const target = index >= 0 ? inv.args[index + 1] : undefined;
  const result = safe("file-write", "file write: unzip");
  return target === undefined ? result : classifyWriteTarget(target, "unzip -d", result);
});

/** tar: runs commands with --to-command/--use-compress-program; extracting into `-C /` writes the root. */
const tarSpec = optionSpec(
  "fCIbFgHKLNTVX",
  words(`
  --file --directory --use-compress-program --to-command --info-script --new-volume-script
  --files-from --exclude --transform --owner --group --mode --checkpoint-action --format
  --listed-incremental
`),
);
const TAR_EXEC = new Set(
  words("-I --use-compress-program --to-command --info-script --new-volume-script -F --checkpoint-action"),
);
register(["tar", "gtar", "bsdtar"], (inv) => {
  // Old-style first argument without a dash (`tar xzf a.tgz`) is a cluster of flags.
  const args =
    inv.args[0] !== undefined && !inv.args[0].startsWith("-")
      ? [`-${inv.args[0]}`, ...inv.args.slice(1)]
      : inv.args;
  const parsed = parseArgs(args, tarSpec);
  let extracting = false;
  let result: Classification = safe("file-write", `file write: ${inv.name}`);
  for (const option of parsed.options) {
    if (TAR_EXEC.has(option.name))
      return dangerous("code-execution", `code execution: ${inv.name} ${option.name}`);
    if (option.name === "-x" || option.name === "--extract" || option.name === "--get") extracting = true;
  }
  for (const option of parsed.options) {
    if (extracting && (option.name === "-C" || option.name === "--directory") && option.value !== null) {
      result = classifyWriteTarget(option.value, `${inv.name} -x -C`, result);
    }
    if (
      !extracting &&
      (option.name === "-f" || option.name === "--file") &&
      option.value !== null &&
      option.value !== "-"
    ) {
      if (
        parsed.options.some(
          (o) => o.name === "-c" || o.name === "--create" || o.name === "-r" || o.name === "-u",
        )
      ) {
        result = classifyWriteTarget(option.value, `${inv.name} -f`, result);
      }
    }
  }
  return result;
});
