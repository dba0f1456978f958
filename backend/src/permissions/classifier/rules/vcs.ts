/**
 * Version control: reads (status, log, diff, …) are safe; writes (commit, push, checkout, …) dangerous;
 * force-pushing or deleting main/master and `--mirror` are destructive (GitHub's CLI: github.ts). A read
 * that writes a file (`git log --output=x`) is dangerous, and so is one that contacts a remote with a
 * computed argument (`git ls-remote https://x/$(cat f)`).
 */
import { computedNetworkArgument } from "../computed";
import { firstPositional, optionSpec, parseArgs } from "../options";
import { type Invocation, register, words } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";
import { classifyWrittenFiles, outputFile } from "../write-target";

export function vcsRead(what: string): Classification {
  return safe("vcs-read", `version-control read: ${shown(what)}`);
}
export function vcsWrite(what: string): Classification {
  return dangerous("vcs-write", `version-control write: ${shown(what)}`);
}

const GIT_READS = new Set(
  words(`
  status log diff show blame annotate shortlog describe rev-parse rev-list ls-files ls-tree
  ls-remote cat-file grep show-ref show-branch for-each-ref merge-base name-rev count-objects
  check-ignore check-attr check-ref-format check-mailmap var whatchanged cherry range-diff
  diff-tree diff-files diff-index verify-commit verify-tag verify-pack version help fetch fsck
  request-pull get-tar-commit-id column hash-object ls-files
`),
);
const GIT_WRITES = new Set(
  words(`
  clone pull merge rebase reset checkout switch restore commit add rm mv cherry-pick revert am
  apply clean init gc prune filter-branch filter-repo replace update-ref update-index fast-import
  pack-refs repack maintenance sparse-checkout mergetool difftool send-email instaweb daemon
  archive format-patch bundle merge-file read-tree write-tree commit-tree mktag mktree rerere
  citool gui svn p4 cvsimport quiltimport imap-send credential credential-store credential-cache
  init-db prune-packed checkout-index unpack-objects index-pack upload-pack receive-pack
  http-backend shell scalar hook
`),
);
/** Settings whose value is a command git runs. */
const GIT_COMMAND_KEYS =
  /(?:pager|sshcommand|editor|fsmonitor|hookspath|external|textconv|program|askpass|command|cmd|driver|helper|gitproxy|uploadpack|receivepack|process|clean|smudge)$/;
const MAIN_BRANCHES = new Set(["main", "master", "trunk", "production", "prod", "release"]);

const gitGlobalSpec = optionSpec(
  "Cc",
  words(`
  --git-dir --work-tree --namespace --config-env --super-prefix --exec-path --list-cmds
  --attr-source
`),
);

register(["git"], (inv) => {
  const args = inv.args;
  // Global options before the subcommand; `-c key=value` can make git run a command.
  const found = firstPositional(args, gitGlobalSpec);
  const globals = parseArgs(found === null ? args : args.slice(0, found.index), gitGlobalSpec);
  for (const option of globals.options) {
    if ((option.name === "-c" || option.name === "--config-env") && option.value !== null) {
      const eq = option.value.indexOf("=");
      const key = (eq < 0 ? option.value : option.value.slice(0, eq)).toLowerCase();
      const value = eq < 0 ? "" : option.value.slice(eq + 1);
      if (GIT_COMMAND_KEYS.test(key) || value.startsWith("!")) {
        return dangerous("code-execution", `code execution: git -c ${shown(key)}`);
      }
    }
    if (option.name === "--exec-path" && option.value !== null)
      return dangerous("code-execution", "code execution: git --exec-path");
  }
  if (found === null) return vcsRead("git");
  const sub = found.word;
  const rest = args.slice(found.index + 1);
  const what = `git ${sub}`;
  if (
    rest.some(
      (arg) =>
        arg.startsWith("--upload-pack") ||
        arg.startsWith("--receive-pack") ||
        arg.startsWith("--exec=") ||
        arg === "--exec",
    )
  ) {
    return dangerous("code-execution", `code execution: ${what} with a custom remote program`);
  }
  const written = gitOutputFiles(sub, rest);
  if (written !== null) return written;
  if (GIT_REMOTE_READS.has(sub) || (sub === "remote" && rest[0] === "show")) {
    const computed = computedNetworkArgument("git", args);
    if (computed !== null) return computed;
  }
  if (sub === "grep" && rest.some((arg) => arg.startsWith("-O") || arg.startsWith("--open-files-in-pager"))) {
    return dangerous("code-execution", "code execution: git grep --open-files-in-pager");
  }
  switch (sub) {
    case "push":
      return gitPush(rest);
    case "branch":
      return gitBranch(rest);
    case "tag":
      return gitTag(rest);
    case "remote":
      return rest.length === 0 ||
        rest[0] === "-v" ||
        rest[0] === "--verbose" ||
        rest[0] === "show" ||
        rest[0] === "get-url"
        ? vcsRead(`git remote ${rest[0] ?? ""}`)
        : vcsWrite(`git remote ${rest[0]}`);
    case "config":
      return gitConfig(inv, rest);
    case "stash":
      return rest[0] === "list" || rest[0] === "show"
        ? vcsRead(`git stash ${rest[0]}`)
        : vcsWrite(`git stash ${rest[0] ?? ""}`);
    case "reflog":
      return rest.length === 0 || rest[0] === "show" || rest[0].startsWith("-") || rest[0] === "exists"
        ? vcsRead("git reflog")
        : vcsWrite(`git reflog ${rest[0]}`);
    case "worktree":
      return rest[0] === "list" ? vcsRead("git worktree list") : vcsWrite(`git worktree ${rest[0] ?? ""}`);
    case "notes":
      return rest.length === 0 || rest[0] === "list" || rest[0] === "show"
        ? vcsRead("git notes")
        : vcsWrite(`git notes ${rest[0]}`);
    case "lfs":
      return rest.length === 0 ||
        words("ls-files status env version logs track-list pointer fsck").includes(rest[0]) ||
        (rest[0] === "track" && rest.length === 1)
        ? vcsRead(`git lfs ${rest[0] ?? ""}`)
        : vcsWrite(`git lfs ${rest[0]}`);
    case "bisect":
      return rest[0] === "log" || rest[0] === "visualize" || rest[0] === "view"
        ? vcsRead("git bisect log")
        : vcsWrite(`git bisect ${rest[0] ?? ""}`);
    case "submodule": {
      if (rest[0] === "foreach") {
        const command = rest
          .slice(1)
          .filter((word) => word !== "--recursive" && word !== "-q" && word !== "--quiet");
        return worse(vcsWrite("git submodule foreach"), inv.line(command.join(" ")));
      }
      return rest.length === 0 || rest[0] === "status" || rest[0] === "summary"
        ? vcsRead("git submodule status")
        : vcsWrite(`git submodule ${rest[0]}`);
    }
    case "symbolic-ref":
      return rest.filter((arg) => !arg.startsWith("-")).length <= 1 &&
        !rest.includes("-d") &&
        !rest.includes("--delete")
        ? vcsRead("git symbolic-ref")
        : vcsWrite("git symbolic-ref");
    default:
      if (GIT_READS.has(sub)) return vcsRead(what);
      if (GIT_WRITES.has(sub)) return vcsWrite(what);
      return dangerous("unknown-command", `unknown command: ${shown(what)}`);
  }
});

/** Reads that contact a remote. */
const GIT_REMOTE_READS = new Set(["fetch", "ls-remote"]);

/**
 * `--output=<file>` (diff, log, show and the other diff-family commands) and `git bugreport` (always writes
 * a report, `-o <dir>`): the output-file verdict, or null when the command writes no file.
 */
function gitOutputFiles(sub: string, rest: readonly string[]): Classification | null {
  const targets: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === "--") break;
    if (arg.startsWith("--output=")) targets.push(arg.slice("--output=".length));
    else if (arg === "--output" && i + 1 < rest.length) targets.push(rest[++i]);
  }
  if (sub === "bugreport") {
    const dir = rest.find(
      (_arg, i) => i > 0 && (rest[i - 1] === "-o" || rest[i - 1] === "--output-directory"),
    );
    return outputFile("git bugreport", dir ?? ".");
  }
  return classifyWrittenFiles(targets, `git ${sub} --output`, (target) =>
    outputFile(`git ${sub} --output`, target),
  );
}

const LEADING_PLUS = /^\+/;
const HEADS_PREFIX = /^refs\/heads\//;
const pushSpec = optionSpec("o", [
  "--repo",
  "--push-option",
  "--receive-pack",
  "--exec",
  "--recurse-submodules",
  "--signed",
]);
function gitPush(args: readonly string[]): Classification {
  const parsed = parseArgs(args, pushSpec);
  let force = false;
  let deleting = false;
  for (const option of parsed.options) {
    const name = option.name;
    if (
      name === "-f" ||
      name === "--force" ||
      name.startsWith("--force-with-lease") ||
      name === "--force-if-includes"
    )
      force = true;
    if (name === "-d" || name === "--delete") deleting = true;
    if (name === "--mirror")
      return destructive(
        "repository-deletion",
        "repository deletion: git push --mirror overwrites and deletes remote refs",
      );
  }
  for (const refspec of parsed.positionals.slice(1)) {
    const forced = force || refspec.startsWith("+");
    const colon = refspec.indexOf(":");
    const deletes = deleting || colon === 0;
    const destination = (colon >= 0 ? refspec.slice(colon + 1) : refspec)
      .replace(LEADING_PLUS, "")
      .replace(HEADS_PREFIX, "");
    if ((forced || deletes) && MAIN_BRANCHES.has(destination)) {
      return destructive(
        "force-push-main",
        `repository history deletion: git push ${deletes ? "--delete" : "--force"} to ${shown(destination)}`,
      );
    }
  }
  const flags = [force ? " --force" : "", deleting ? " --delete" : ""].join("");
  return vcsWrite(`git push${flags}`);
}

const BRANCH_WRITE = new Set(
  words(`
  -d -D --delete -m -M --move -c -C --copy -u --set-upstream-to --unset-upstream
  --edit-description -f --force -t --track --no-track --create-reflog
`),
);
const BRANCH_LIST = new Set(["-l", "--list", "-a", "--all", "-r", "--remotes"]);
const branchSpec = optionSpec(
  "u",
  words(`
  --set-upstream-to --sort --format --points-at --color --column --contains --no-contains --merged
  --no-merged --abbrev
`),
);
function gitBranch(args: readonly string[]): Classification {
  const parsed = parseArgs(args, branchSpec);
  if (parsed.options.some((option) => option.name === "--show-current"))
    return vcsRead("git branch --show-current");
  if (parsed.options.some((option) => BRANCH_WRITE.has(option.name)))
    return vcsWrite(`git branch ${shown(args.join(" "))}`);
  const listing = parsed.options.some((option) => BRANCH_LIST.has(option.name));
  if (parsed.positionals.length > 0 && !listing)
    return vcsWrite(`git branch ${shown(parsed.positionals[0])}`);
  return vcsRead("git branch");
}

const TAG_WRITE = new Set(
  words("-d --delete -a --annotate -s --sign -m --message -F --file -f --force -u --local-user -e --edit"),
);
const tagSpec = optionSpec(
  "mFu",
  words(`
  --message --file --local-user --sort --format --points-at --contains --no-contains --merged
  --no-merged --color --column
`),
);
function gitTag(args: readonly string[]): Classification {
  const parsed = parseArgs(args, tagSpec);
  if (parsed.options.some((option) => TAG_WRITE.has(option.name)))
    return vcsWrite(`git tag ${shown(args.join(" "))}`);
  const listing = parsed.options.some(
    (option) =>
      option.name === "-l" ||
      option.name === "--list" ||
      option.name.startsWith("-n") ||
      option.name === "-v" ||
      option.name === "--verify",
  );
  if (parsed.positionals.length > 0 && !listing) return vcsWrite(`git tag ${shown(parsed.positionals[0])}`);
  return vcsRead("git tag");
}

const CONFIG_READ = new Set(
  words("--get --get-all --get-regexp --get-urlmatch -l --list --get-color --get-colorbool"),
);
const configSpec = optionSpec("f", ["--file", "--blob", "--type", "--default"]);
function gitConfig(inv: Invocation, args: readonly string[]): Classification {
  const parsed = parseArgs(args, configSpec);
  if (parsed.options.some((option) => CONFIG_READ.has(option.name))) return vcsRead("git config --get");
  const positionals = parsed.positionals;
  if (positionals[0] === "get" || positionals[0] === "list") return vcsRead(`git config ${positionals[0]}`);
  if (
    positionals.length <= 1 &&
    !parsed.options.some(
      (option) =>
        option.name === "--unset" ||
        option.name === "--unset-all" ||
        option.name === "--remove-section" ||
        option.name === "--rename-section" ||
        option.name === "--add" ||
        option.name === "--replace-all" ||
        option.name === "-e" ||
        option.name === "--edit",
    )
  ) {
    return vcsRead("git config");
  }
  const value = positionals[positionals.length - 1] ?? "";
  const write = vcsWrite(`git config ${shown(positionals.slice(0, 2).join(" "))}`);
  return value.startsWith("!") ? worse(write, inv.line(value.slice(1))) : write;
}

const HG_READS = new Set(
  words(`
  status st log diff cat annotate blame heads branches tags summary sum identify id paths root
  files locate grep incoming in outgoing out help version config showconfig parents tip bookmarks
  manifest verify
`),
);
const SVN_READS = new Set(
  words(`
  status st log diff di cat info list ls blame praise annotate ann proplist pl propget pg help
  mergeinfo
`),
);
const hgSpec = optionSpec("R", ["--repository", "--cwd", "--config"]);
register(["hg", "svn"], (inv) => {
  const found = firstPositional(inv.args, hgSpec);
  const sub = found?.word ?? "";
  if (found === null || (inv.name === "hg" ? HG_READS : SVN_READS).has(sub))
    return vcsRead(`${inv.name} ${sub}`);
  return vcsWrite(`${inv.name} ${sub}`);
});
