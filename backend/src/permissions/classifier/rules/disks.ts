/** Raw disk writes (`dd of=/dev/sda`) and formatting or partitioning (mkfs, fdisk, wipefs, …) are destructive. */
import { isRawDisk } from "../paths";
import { register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";
import { classifyWriteTarget } from "../write-target";

/** dd: `of=` a raw disk is destructive. */
register(["dd"], (inv) => {
  let result: Classification = safe("file-write", "file write: dd");
  for (const arg of inv.args) {
    if (arg.startsWith("of=")) {
      const target = arg.slice(3);
      if (isRawDisk(target)) return destructive("raw-disk-write", `raw disk write: dd of=${shown(target)}`);
      result = classifyWriteTarget(target, "dd of=", result);
    } else if (arg.startsWith("if=") && isRawDisk(arg.slice(3))) {
      result = worse(result, dangerous("raw-disk-read", `raw disk read: dd ${shown(arg)}`));
    }
  }
  return result;
});

const LIST_ONLY = new Set(["-l", "--list", "-s", "--show", "print", "-L"]);
register(
  words(`
  mkfs mke2fs mkswap mkntfs mkdosfs mkexfatfs newfs wipefs fdisk sfdisk cfdisk gdisk sgdisk parted
  blkdiscard pvremove vgremove lvremove zpool cryptsetup badblocks hdparm nvme
`),
  (inv) => {
    const listing =
      (inv.name === "fdisk" ||
        inv.name === "sfdisk" ||
        inv.name === "parted" ||
        inv.name === "gdisk" ||
        inv.name === "sgdisk" ||
        inv.name === "nvme" ||
        inv.name === "hdparm") &&
      inv.args.some((arg) => LIST_ONLY.has(arg) || arg === "list");
    if (listing || (inv.name === "zpool" && (inv.args[0] === "list" || inv.args[0] === "status"))) {
      return safe("system-info", `system info: ${inv.name} ${shown(inv.args.join(" "))}`);
    }
    if (
      inv.name === "wipefs" &&
      inv.args.every((arg) => !arg.startsWith("-a") && arg !== "--all" && !arg.startsWith("-o"))
    ) {
      return safe("system-info", "system info: wipefs (listing)");
    }
    return destructive("disk-format", `disk format: ${inv.name} ${shown(inv.args.join(" "))}`);
  },
);

const DISKUTIL_DESTROY = /^(?:erase|partition|zero|random|secureerase|reformat|apfs)/i;
const diskutilReads = new Set(["list", "info", "information", "activity", "listFilesystems"]);
register(["diskutil"], (inv) => {
  const verb = inv.args[0] ?? "";
  if (diskutilReads.has(verb)) return safe("system-info", `system info: diskutil ${verb}`);
  if (DISKUTIL_DESTROY.test(verb)) {
    return destructive("disk-format", `disk format: diskutil ${shown(verb)}`);
  }
  return dangerous("system-change", `system change: diskutil ${shown(verb)}`);
});
