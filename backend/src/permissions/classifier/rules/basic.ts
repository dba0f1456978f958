/**
 * The safe categories (read-only file, text processing, system info, network read), shell
 * builtins, and the system commands whose verdict depends on a flag (`date -s`, `hostname NAME`, …).
 */
import { optionSpec, parseArgs } from "../options";
import { type Invocation, register, registerFixed, words } from "../registry";
import { type Classification, dangerous, safe, shown } from "../types";
import { classifyWrittenFile, editedInPlace, outputFile } from "../write-target";

registerFixed(
  words(`
  cat ls ll la dir vdir head tail more most stat file wc du df bat batcat exa eza lsd
  locate plocate readlink realpath namei lsattr getfacl zcat zless zmore bzcat xzcat zstdcat
  lz4cat pwd basename dirname zgrep
`),
  "safe",
  "read-only-file",
  "read-only file",
);

registerFixed(
  words(`
  grep egrep fgrep rg ag ack cut tr diff diff3 colordiff cmp comm join
  paste column fmt fold rev tac expand unexpand base64 base32 basenc od hexdump strings md5sum
  md5 sha1sum sha224sum sha256sum sha384sum sha512sum shasum b2sum cksum sum seq nl tsort
  numfmt echo printf yes expr bc factor look colrm pr envsubst sha3sum
`),
  "safe",
  "text-processing",
  "text processing",
);

registerFixed(
  words(`
  uname whoami id uptime pstree pgrep top htop btop atop free vmstat iostat mpstat pidstat
  lscpu lsblk lsusb lspci lsmod lsof nproc arch groups who w last lastlog users logname tty locale
  getconf which whereis type getent nvidia-smi sw_vers system_profiler ss netstat blkid
  findmnt cal ncal lsb_release neofetch fastfetch screenfetch dmesg ulimit umask stty tput clear
  sleep true false : history jobs wait times help lslocks lsipc lsns lshw dmidecode inxi
  hwinfo sensors
`),
  "safe",
  "system-info",
  "system info",
);

registerFixed(
  words("ping ping6 traceroute traceroute6 tracepath mtr whois"),
  "safe",
  "network-read",
  "network read",
);

registerFixed(
  words(`
  cd pushd popd dirs unset shopt local readonly shift read getopts
  unalias return exit break continue bg fg disown let mapfile readarray complete compgen compopt
  logout caller setopt unsetopt test [ [[
`),
  "safe",
  "shell-builtin",
  "shell builtin",
);

// `hash -p FILE NAME` makes NAME run FILE (issue #24): like an alias, never safe.
registerFixed(["hash"], "dangerous", "command-lookup-change", "changes what a command name runs");

registerFixed(
  ["kill", "pkill", "killall", "xkill", "skill"],
  "dangerous",
  "process-control",
  "process control",
);
registerFixed(
  ["shutdown", "reboot", "halt", "poweroff", "init", "telinit"],
  "dangerous",
  "system-power",
  "system power",
);
registerFixed(
  words("useradd userdel adduser deluser groupadd groupdel groupmod passwd chpasswd chsh chfn"),
  "dangerous",
  "account-change",
  "account change",
);

const dateSpec = optionSpec("dfrI", ["--date", "--file", "--reference"]);
register(["date", "gdate"], (inv) => {
  const parsed = parseArgs(inv.args, dateSpec);
  for (const option of parsed.options) {
    if (option.name === "-s" || option.name === "--set")
      return dangerous("system-change", "system change: date --set");
  }
  return safe("system-info", `system info: ${inv.name}`);
});

register(["hostname"], (inv) => {
  const setting = inv.args.some((arg) => !arg.startsWith("-"));
  return setting
    ? dangerous("system-change", `system change: hostname ${shown(inv.args.join(" "))}`)
    : safe("system-info", "system info: hostname");
});

const systemctlReads = new Set(
  words(`
  status show cat list-units list-unit-files list-timers list-sockets list-dependencies list-jobs
  list-machines is-active is-enabled is-failed is-system-running get-default help --version
`),
);
register(["systemctl"], (inv) => {
  const action = inv.args.find((arg) => !arg.startsWith("-")) ?? "list-units";
  if (systemctlReads.has(action) || inv.args.includes("--version")) {
    return safe("system-info", `system info: systemctl ${action}`);
  }
  return dangerous("service-control", `service control: systemctl ${shown(action)}`);
});
register(["service"], (inv) => {
  if (inv.args[0] === "--status-all" || inv.args[1] === "status" || inv.args.length === 0) {
    return safe("system-info", "system info: service status");
  }
  return dangerous("service-control", `service control: service ${shown(inv.args.join(" "))}`);
});
register(["launchctl"], (inv) =>
  inv.args[0] === "list" || inv.args[0] === "print"
    ? safe("system-info", `system info: launchctl ${inv.args[0]}`)
    : dangerous("service-control", `service control: launchctl ${shown(inv.args[0] ?? "")}`),
);

const journalctlSpec = optionSpec(
  "uSUpnoDMbtfkrqxe",
  words("--unit --since --until --priority --lines --output --directory"),
);
register(["journalctl"], (inv) => {
  const parsed = parseArgs(inv.args, journalctlSpec);
  for (const option of parsed.options) {
    if (
      option.name.startsWith("--vacuum") ||
      option.name === "--rotate" ||
      option.name === "--flush" ||
      option.name === "--relinquish-var"
    ) {
      return dangerous("service-control", `service control: journalctl ${option.name}`);
    }
  }
  return safe("system-info", "system info: journalctl");
});

/** Reads unless a word in `writes` (or a `key=value` for sysctl) appears. */
function readUnless(label: string, writes: ReadonlySet<string>, rule: string, ruleLabel: string) {
  return (inv: Invocation): Classification => {
    for (const arg of inv.args) {
      if (writes.has(arg)) return dangerous(rule, `${ruleLabel}: ${inv.name} ${arg}`);
    }
    return safe("system-info", `${label}: ${inv.name}`);
  };
}

register(
  ["ip"],
  readUnless(
    "system info",
    new Set(words("add del delete set change replace flush append a d up down")),
    "network-change",
    "network change",
  ),
);
register(["ifconfig"], (inv) =>
  inv.args.length <= 1 || (inv.args.length === 2 && inv.args[0] === "-a")
    ? safe("system-info", "system info: ifconfig")
    : dangerous("network-change", `network change: ifconfig ${shown(inv.args.join(" "))}`),
);
register(["route"], (inv) =>
  inv.args.some(
    (arg) => arg === "add" || arg === "del" || arg === "delete" || arg === "change" || arg === "flush",
  )
    ? dangerous("network-change", `network change: route ${shown(inv.args.join(" "))}`)
    : safe("system-info", "system info: route"),
);
register(["arp"], (inv) =>
  inv.args.some((arg) => arg === "-d" || arg === "-s" || arg === "-f")
    ? dangerous("network-change", "network change: arp")
    : safe("system-info", "system info: arp"),
);
register(["sysctl"], (inv) =>
  inv.args.some(
    (arg) =>
      arg === "-w" ||
      arg === "--write" ||
      arg === "-p" ||
      arg === "--load" ||
      (arg.includes("=") && !arg.startsWith("-")),
  )
    ? dangerous("system-change", `system change: sysctl ${shown(inv.args.join(" "))}`)
    : safe("system-info", "system info: sysctl"),
);
register(["mount", "umount", "swapon", "swapoff"], (inv) =>
  (inv.name === "mount" && inv.args.length === 0) ||
  (inv.name === "swapon" && (inv.args.includes("--show") || inv.args.includes("-s")))
    ? safe("system-info", `system info: ${inv.name}`)
    : dangerous("system-change", `system change: ${inv.name} ${shown(inv.args.join(" "))}`),
);
register(["crontab"], (inv) =>
  inv.args.length > 0 &&
  inv.args.every((arg) => arg === "-l" || arg === "-u" || !arg.startsWith("-")) &&
  inv.args.includes("-l")
    ? safe("system-info", "system info: crontab -l")
    : dangerous("scheduled-task-change", `scheduled task change: crontab ${shown(inv.args.join(" "))}`),
);
const firewallReads = new Set(
  words(`
  -L -S --list --list-rules list status show --state --list-all -nL -vL -nvL -vnL --get-zones
  --get-active-zones
`),
);
register(["iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "iptables-save"], (inv) =>
  inv.name === "iptables-save" || inv.args.some((arg) => firewallReads.has(arg)) || inv.args.length === 0
    ? safe("system-info", `system info: ${inv.name}`)
    : dangerous("network-change", `firewall change: ${inv.name} ${shown(inv.args.join(" "))}`),
);

/** `sort -o FILE`, `uniq IN OUT`: text processing that also writes a file. */
const sortSpec = optionSpec(
  "okStT",
  words(`
  --output --key --field-separator --buffer-size --temporary-directory --parallel --files0-from
  --batch-size --compress-program --random-source
`),
);
register(["sort"], (inv) => {
  const parsed = parseArgs(inv.args, sortSpec);
  let result: Classification = safe("text-processing", "text processing: sort");
  for (const option of parsed.options) {
    if ((option.name === "-o" || option.name === "--output") && option.value !== null) {
      result = classifyWrittenFile(option.value, "sort -o", outputFile("sort -o", option.value), result);
    }
    if (option.name === "--compress-program")
      return dangerous("code-execution", "code execution: sort --compress-program");
  }
  return result;
});

/**
 * awk is text processing unless its program runs commands (`system()`, pipes to or from commands), writes
 * a file (`print … > "file"`), reads one its arguments do not name (`getline`, changing `ARGV`), loads code
 * (`@load`, `@include`), reads the whole environment (`ENVIRON`), or gawk edits files in place
 * (`-i inplace`).
 */
const awkSpec = optionSpec(
  "fvFEi",
  words("--file --assign --field-separator --exec --include --load --source"),
);
const AWK_EXEC = /\bsystem\s*\(|\|/;
const AWK_ENVIRONMENT = /\bENVIRON\b/;
const AWK_OTHER_FILES = /\bgetline\b|\bARG[VC]\b|@(?:load|include)\b/;
const AWK_PRINT = /\bprintf?\b/g;
register(["awk", "gawk", "mawk", "nawk"], (inv) => {
  const parsed = parseArgs(inv.args, awkSpec);
  let program: string | null = null;
  for (const option of parsed.options) {
    if (
      option.name === "-f" ||
      option.name === "--file" ||
      option.name === "-E" ||
      option.name === "--exec" ||
      option.name === "--load" ||
      option.name === "-l"
    ) {
      return dangerous(
        "code-execution",
        `code execution: ${inv.name} ${option.name} ${shown(option.value ?? "")}`,
      );
    }
    if ((option.name === "-i" || option.name === "--include") && option.value !== null) {
      if (option.value === "inplace" || option.value === "inplace.awk") {
        return editedInPlace(`${inv.name} -i inplace`, parsed.positionals.slice(1));
      }
      return dangerous("code-execution", `code execution: ${inv.name} -i ${shown(option.value)}`);
    }
    if ((option.name === "--source" || option.name === "-e") && option.value !== null) program = option.value;
  }
  program ??= parsed.positionals[0] ?? "";
  if (AWK_EXEC.test(program))
    return dangerous("code-execution", `code execution: ${inv.name} program runs commands`);
  if (AWK_ENVIRONMENT.test(program))
    return dangerous("environment-dump", `environment dump: ${inv.name} ENVIRON`);
  if (printsToFile(program)) return dangerous("output-file", `output file: ${inv.name} print > file`);
  if (AWK_OTHER_FILES.test(program)) {
    return dangerous("unknown-option", `${inv.name} program reads files its arguments do not name`);
  }
  return safe("text-processing", `text processing: ${inv.name}`);
});

/**
 * A `print`/`printf` statement with a `>` outside parentheses and strings: awk's grammar makes that an
 * output redirection (a comparison must be parenthesized there).
 */
function printsToFile(program: string): boolean {
  for (const match of program.matchAll(AWK_PRINT)) {
    let depth = 0;
    let inString = false;
    for (let j = match.index + match[0].length; j < program.length; j++) {
      const c = program[j];
      if (inString) {
        if (c === "\\") j++;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === "(") depth++;
      else if (c === ")") {
        if (--depth < 0) break;
      } else if (depth === 0 && (c === ";" || c === "}" || c === "\n")) break;
      else if (depth === 0 && c === ">") return true;
    }
  }
  return false;
}

const yqSpec = optionSpec("", []);
register(["yq"], (inv) => {
  const parsed = parseArgs(inv.args, yqSpec);
  if (!parsed.options.some((option) => option.name === "-i" || option.name === "--inplace")) {
    return safe("text-processing", "text processing: yq");
  }
  return editedInPlace("yq -i", parsed.positionals.slice(1));
});
