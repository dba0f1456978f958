/**
 * Network: HTTP clients are a network read for a plain GET and a network write when they send data, upload
 * or use another method; remote execution (ssh: the remote command is classified too) and remote copy.
 * A GET that sends a file's content (`@file` values, headers or URLs read from a file) is a write too, and
 * an output-file flag (`-o`, `-O`, `--cookie-jar`, …) makes a read dangerous: it replaces a local file with
 * what a server sent. Computed arguments (`$(…)`, `$VAR`) of every network read: engine.ts.
 */
import { optionSpec, parseArgs } from "../options";
import { isRootLikeDeleteTarget } from "../paths";
import { register, registerFixed, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";
import { classifyWriteTarget, classifyWrittenFile, outputFile } from "../write-target";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function networkWrite(what: string): Classification {
  return dangerous("network-write", `network write: ${shown(what)}`);
}

/** Sends a local file's content, or builds its requests from a file or standard input. */
function networkFileData(what: string): Classification {
  return dangerous("network-file-data", `network request from a file's content: ${shown(what)}`);
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
  --crlfile --connect-to --dns-servers --libcurl
`),
);
const CURL_DATA = new Set(
  words("-d --data --data-raw --data-binary --data-urlencode --data-ascii --json -F --form --form-string"),
);
/** Files curl writes: the output (`-o`), headers, cookies, traces, caches. */
const CURL_OUTPUT = new Set(
  words(`
  -o --output -D --dump-header -c --cookie-jar --trace --trace-ascii --stderr --etag-save
  --output-dir --hsts --alt-svc --libcurl
`),
);
/** Output files named by the URL (curl replaces an existing file of that name). */
const CURL_REMOTE_NAME = new Set(["-O", "--remote-name", "--remote-name-all"]);
/** Values that read a file when they start with `@` (`-d @file`, `-H @file`). */
const CURL_AT_FILE = new Set(
  words("-d --data --data-binary --data-ascii --json -H --header --proxy-header --url"),
);
/** `name@file` or `@file` values (`--data-urlencode`, `--url-query`): the file's content, URL-encoded. */
const CURL_NAMED_FILE = new Set(["--data-urlencode", "--url-query"]);
const NAMED_FILE = /^\+?[^=]*@/;

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
    // With -G the data goes into the URL: still a file's content (`@file`, `@-` standard input).
    if (value !== null && CURL_AT_FILE.has(name) && value.startsWith("@")) {
      return networkFileData(`curl ${name} ${value}`);
    }
    if (value !== null && CURL_NAMED_FILE.has(name) && NAMED_FILE.test(value)) {
      return networkFileData(`curl ${name} ${value}`);
    }
    if (name === "--variable") {
      return networkFileData(`curl --variable ${value ?? ""} (a file or the environment)`);
    }
    if ((name === "-b" || name === "--cookie") && value !== null && value !== "" && !value.includes("=")) {
      return networkFileData(`curl ${name} ${value} (cookies from a file)`);
    }
    if (name === "-T" || name === "--upload-file") return networkWrite(`curl ${name}`);
    if (name === "-Q" || name === "--quote") return networkWrite(`curl ${name} (FTP command)`);
    if (name === "-K" || name === "--config")
      result = worse(result, networkWrite(`curl ${name} (options from a file)`));
    if (CURL_OUTPUT.has(name) && value !== null)
      result = classifyWrittenFile(value, `curl ${name}`, outputFile(`curl ${name}`, value), result);
    if (CURL_REMOTE_NAME.has(name)) result = worse(result, outputFile(`curl ${name}`, "(named by the URL)"));
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
/**
 * A plain `wget URL` never replaces a file (an existing name gets `.1`); these do: timestamping,
 * continuing, recursive and mirror downloads overwrite what is there.
 */
const WGET_OVERWRITE = new Set(words("-N --timestamping -c --continue -r --recursive -m --mirror"));
/** `-nc`, `-nv`, `-np`, `-nd`, `-nH`: one option each, not a cluster of `-n` and a letter. */
const WGET_NO_OPTION = /^-n[A-Za-z]$/;
/** The one common wgetrc command that neither sends, reads nor writes anything. */
const WGET_HARMLESS_COMMAND = /^robots\s*=\s*(?:on|off)$/i;
register(["wget", "wget2"], (inv) => {
  const parsed = parseArgs(
    inv.args.map((arg) => (WGET_NO_OPTION.test(arg) ? `--no-${arg.slice(2)}` : arg)),
    wgetSpec,
  );
  let result: Classification = safe("network-read", `network read: ${inv.name} GET`);
  for (const { name, value } of parsed.options) {
    if (WGET_DATA.has(name)) return networkWrite(`${inv.name} ${name}`);
    if (name === "--method" && value !== null && !READ_METHODS.has(value.toUpperCase())) {
      return networkWrite(`${inv.name} --method ${value}`);
    }
    if ((name === "-e" || name === "--execute") && value !== null && !WGET_HARMLESS_COMMAND.test(value)) {
      return networkWrite(`${inv.name} -e ${value}`);
    }
    if (name === "-i" || name === "--input-file" || name === "--config" || name === "--load-cookies") {
      return networkFileData(`${inv.name} ${name} ${value ?? ""}`);
    }
    if (WGET_OUTPUT.has(name) && value !== null)
      result = classifyWrittenFile(
        value,
        `${inv.name} ${name}`,
        outputFile(`${inv.name} ${name}`, value),
        result,
      );
    if (WGET_OVERWRITE.has(name))
      result = worse(result, outputFile(`${inv.name} ${name}`, "(overwrites files)"));
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
      result = classifyWrittenFile(value, `${inv.name} -o`, outputFile(`${inv.name} -o`, value), result);
    if (name === "--session" && value !== null)
      result = worse(result, outputFile(`${inv.name} --session`, value));
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
    // `name:=json`, and `Header:@file` (a header read from a file).
    if (c === ":") return item[i + 1] === "=" || item[i + 1] === "@";
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

/** Name lookups: a network read, unless the queries come from a file or from standard input. */
registerFixed(words("host drill delv"), "safe", "network-read", "network read");
const digSpec = optionSpec("bcfkpqtxy", []);
register(["dig"], (inv) => {
  const parsed = parseArgs(inv.args, digSpec);
  const file = parsed.options.find((option) => option.name === "-f");
  return file ? networkFileData(`dig -f ${file.value ?? ""}`) : safe("network-read", "network read: dig");
});
// Without a name to look up (or with `-`), nslookup reads its queries from standard input.
register(["nslookup"], (inv) =>
  inv.args.some((arg) => !arg.startsWith("-")) && !inv.args.includes("-")
    ? safe("network-read", "network read: nslookup")
    : networkFileData("nslookup (queries from standard input)"),
);
