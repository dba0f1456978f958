/**
 * Network: HTTP clients are a network read for a plain GET and a network write when they send data, upload
 * or use another method; remote execution (ssh: the remote command is classified too) and remote copy.
 */
import { optionSpec, parseArgs } from "../options";
import { isRootLikeDeleteTarget } from "../paths";
import { register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";
import { classifyWriteTarget } from "../write-target";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function networkWrite(what: string): Classification {
  return dangerous("network-write", `network write: ${shown(what)}`);
}

const curlSpec = optionSpec(
  "AbcCdDeEFHKmoPQrtTuUwxXyYz",
  words(`
  --data --data-raw --data-binary --data-urlencode --data-ascii --json --form --form-string
  --upload-file --request --output --header --user --user-agent --cookie --cookie-jar --config
  --max-time --connect-timeout --proxy --url --referer --write-out --cert --key --cacert --retry
  --range --output-dir --dump-header --quote --unix-socket --resolve --interface --limit-rate
  --max-filesize --oauth2-bearer --mail-from --mail-rcpt --trace --trace-ascii --stderr
  --netrc-file --retry-delay --retry-max-time --variable --etag-save --etag-compare --hsts
  --alt-svc --aws-sigv4 --proxy-header --preproxy --socks5 --socks5-hostname --noproxy --ciphers
  --pinnedpubkey --expect100-timeout --url-query --continue-at --speed-time --speed-limit
  --time-cond --telnet-option --ftp-port --proxy-user --cert-type --key-type --pass --capath
  --crlfile --connect-to --dns-servers
`),
);
const CURL_DATA = new Set(
  words("-d --data --data-raw --data-binary --data-urlencode --data-ascii --json -F --form --form-string"),
);
const CURL_OUTPUT = new Set(
  words(`
  -o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --stderr --etag-save
  --output-dir
`),
);

register(["curl"], (inv) => {
  const parsed = parseArgs(inv.args, curlSpec);
  const get = parsed.options.some((option) => option.name === "-G" || option.name === "--get");
  let result: Classification = safe("network-read", "network read: curl GET");
  for (const option of parsed.options) {
    const { name, value } = option;
    if ((name === "-X" || name === "--request") && value !== null && !READ_METHODS.has(value.toUpperCase())) {
      return networkWrite(`curl -X ${value}`);
    }
    if (CURL_DATA.has(name) && (!get || name === "-F" || name === "--form" || name === "--form-string")) {
      return networkWrite(`curl ${name}`);
    }
    if (name === "-T" || name === "--upload-file") return networkWrite(`curl ${name}`);
    if (name === "-Q" || name === "--quote") return networkWrite(`curl ${name} (FTP command)`);
    if (name === "-K" || name === "--config")
      result = worse(result, networkWrite(`curl ${name} (options from a file)`));
    if (CURL_OUTPUT.has(name) && value !== null && value !== "-")
      result = classifyWriteTarget(value, `curl ${name}`, result);
  }
  return result;
});

const wgetSpec = optionSpec(
  "OoaeiBPtTwQUlARDXI",
  words(`
  --output-document --output-file --append-output --execute --input-file --base --directory-prefix
  --tries --timeout --wait --quota --user-agent --level --accept --reject --domains --header
  --method --body-data --body-file --post-data --post-file --user --password --load-cookies
  --save-cookies --referer --ca-certificate --certificate
`),
);
const WGET_DATA = new Set(["--post-data", "--post-file", "--body-data", "--body-file"]);
const WGET_OUTPUT = new Set(
  words("-O --output-document -o --output-file -a --append-output -P --directory-prefix --save-cookies"),
);
register(["wget", "wget2"], (inv) => {
  const parsed = parseArgs(inv.args, wgetSpec);
  let result: Classification = safe("network-read", `network read: ${inv.name} GET`);
  for (const { name, value } of parsed.options) {
    if (WGET_DATA.has(name)) return networkWrite(`${inv.name} ${name}`);
    if (name === "--method" && value !== null && !READ_METHODS.has(value.toUpperCase())) {
      return networkWrite(`${inv.name} --method ${value}`);
    }
    if ((name === "-e" || name === "--execute") && value !== null && value.toLowerCase().includes("post")) {
      return networkWrite(`${inv.name} -e ${value}`);
    }
    if (WGET_OUTPUT.has(name) && value !== null && value !== "-")
      result = classifyWriteTarget(value, `${inv.name} ${name}`, result);
  }
  return result;
});

/** httpie / xh: `http [METHOD] URL [ITEMS]`; data items (`k=v`, `k:=v`, `@file`) make it a write. */
const httpieSpec = optionSpec(
  "aAopsv",
  words(`
  --auth --auth-type --output --session --session-read-only --verify --cert --cert-key --proxy
  --timeout --print --pretty --style --format-options --max-redirects --default-scheme --boundary
  --raw
`),
);
const METHOD_WORD = /^[A-Za-z]+$/;
register(["http", "https", "xh", "xhs"], (inv) => {
  const parsed = parseArgs(inv.args, httpieSpec);
  let result: Classification = safe("network-read", `network read: ${inv.name} GET`);
  for (const { name, value } of parsed.options) {
    if (name === "--raw") return networkWrite(`${inv.name} --raw`);
    if ((name === "-o" || name === "--output") && value !== null)
      result = classifyWriteTarget(value, `${inv.name} -o`, result);
  }
  let items = parsed.positionals;
  const first = items[0];
  if (first !== undefined && METHOD_WORD.test(first) && items.length > 1) {
    if (!READ_METHODS.has(first.toUpperCase())) return networkWrite(`${inv.name} ${first.toUpperCase()}`);
    items = items.slice(1);
  }
  for (const item of items.slice(1)) {
    if (isDataItem(item)) return networkWrite(`${inv.name} ${item}`);
  }
  return result;
});

function isDataItem(item: string): boolean {
  for (let i = 0; i < item.length; i++) {
    const c = item[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "=") return item[i + 1] !== "=";
    if (c === "@") return true;
    if (c === ":") return item[i + 1] === "=";
  }
  return false;
}

/** ssh HOST [COMMAND…]: remote execution, at least as severe as the remote command. */
const sshSpec = optionSpec("bBcDEeFIiJLlmOopQRSWw", [], { stopAtPositional: true });
register(["ssh", "mosh", "autossh"], (inv) => {
  const beforeHost = parseArgs(inv.args, sshSpec).rest;
  const host = beforeHost[0] ?? "";
  // OpenSSH also accepts options after the host name.
  const command = parseArgs(beforeHost.slice(1), sshSpec).rest;
  const remote = dangerous("remote-execution", `remote execution: ${inv.name} ${shown(host)}`);
  return command.length > 0 ? worse(remote, inv.line(command.join(" "))) : remote;
});

registerRemoteCopy(words("scp sftp ftp lftp tftp rclone s3cmd croc magic-wormhole smbclient"));
function registerRemoteCopy(names: readonly string[]): void {
  register(names, (inv) => dangerous("remote-copy", `remote copy: ${inv.name} ${shown(inv.args.join(" "))}`));
}

register(words("nc netcat ncat socat telnet websocat wscat"), (inv) =>
  dangerous("network-connection", `network connection: ${inv.name} ${shown(inv.args.join(" "))}`),
);

/** rsync: to or from `host:` is a remote copy; locally a file write (with --delete into `/`: destructive). */
const rsyncSpec = optionSpec(
  "eBfTM",
  words(`
  --rsh --rsync-path --exclude --include --filter --exclude-from --include-from --files-from
  --backup-dir --suffix --chmod --chown --temp-dir --log-file --password-file --partial-dir
  --compare-dest --copy-dest --link-dest --timeout --bwlimit --port --out-format --max-size
  --min-size --block-size --remote-option
`),
);
const REMOTE_PATH = /^(?:[^/]*[^/\\]:|rsync:\/\/)/;
register(["rsync"], (inv) => {
  const parsed = parseArgs(inv.args, rsyncSpec);
  for (const path of parsed.positionals) {
    if (REMOTE_PATH.test(path)) return dangerous("remote-copy", `remote copy: rsync ${shown(path)}`);
  }
  const target = parsed.positionals[parsed.positionals.length - 1];
  if (target === undefined || parsed.positionals.length < 2)
    return safe("read-only-file", "read-only file: rsync (listing)");
  const deleting = parsed.options.some(
    (option) => option.name.startsWith("--delete") || option.name === "--remove-source-files",
  );
  if (deleting && isRootLikeDeleteTarget(target)) {
    return destructive("recursive-root-delete", `recursive delete of ${shown(target)} (rsync --delete)`);
  }
  if (
    parsed.options.some(
      (option) => option.name === "-e" || option.name === "--rsh" || option.name === "--rsync-path",
    )
  ) {
    return dangerous("code-execution", "code execution: rsync --rsh");
  }
  return classifyWriteTarget(target, "rsync", safe("file-write", "file write: rsync"));
});
