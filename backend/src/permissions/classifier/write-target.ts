/** The verdict for a file a command writes (redirections, `cp` targets, `dd of=`, `curl -o`, …). */
import { isRawDisk, isRootWriteTarget, isSensitivePath } from "./paths";
import { type Classification, dangerous, destructive, shown } from "./types";

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
