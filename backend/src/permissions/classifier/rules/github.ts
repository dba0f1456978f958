/**
 * GitHub's CLI: reads are version-control reads, other actions version-control writes; deleting a
 * repository or release, publishing a repository or a release, and `gh api -X DELETE repos/o/r` are
 * destructive.
 */
import { firstPositional, optionSpec, parseArgs } from "../options";
import { type Invocation, register, words } from "../registry";
import { type Classification, dangerous, destructive, shown } from "../types";
import { vcsRead, vcsWrite } from "./vcs";

/** gh: GitHub's CLI. */
const GH_READ_ACTIONS = new Set(
  words("list ls view status diff checks watch download search get show token"),
);
const ghApiSpec = optionSpec(
  "XfFHpqt",
  words("--method --field --raw-field --header --input --preview --jq --template --hostname --cache"),
);
const GH_REPO_PATH = /^\/?repos\/[^/]+\/[^/]+\/?$/;
const ghSpec = optionSpec(
  "RLsbtBHlamqAwF",
  words(`
  --repo --hostname --body --title --base --head --label --assignee --milestone --limit --state
  --author --jq --json --template --visibility --branch --workflow --body-file --notes
  --notes-file --target --reviewer --search --description --homepage --team
`),
);
const GH_READ_GROUPS = new Set(["search", "browse", "status", "help", "version", "completion"]);

register(["gh"], (inv) => {
  const groupAt = firstPositional(inv.args, ghSpec);
  const group = groupAt?.word ?? "";
  const afterGroup = groupAt === null ? [] : inv.args.slice(groupAt.index + 1);
  const actionAt = firstPositional(afterGroup, ghSpec);
  const action = actionAt?.word ?? "";
  const rest = actionAt === null ? [] : afterGroup.slice(actionAt.index + 1);
  const what = `gh ${group} ${action}`.trim();
  const flags = inv.args.filter((arg) => arg.startsWith("-"));
  if (group === "" || GH_READ_GROUPS.has(group) || inv.args[0] === "--version") return vcsRead(what || "gh");
  if (group === "api") return ghApi(inv);
  if (group === "repo") {
    if (action === "delete")
      return destructive(
        "repository-deletion",
        `repository deletion: gh repo delete ${shown(rest[0] ?? "")}`,
      );
    if (action === "create" && flags.includes("--public"))
      return destructive("repository-publication", "repository publication: gh repo create --public");
    if (
      action === "edit" &&
      (flags.includes("--visibility=public") ||
        (inv.args.includes("--visibility") && inv.args[inv.args.indexOf("--visibility") + 1] === "public"))
    ) {
      return destructive(
        "repository-publication",
        "repository publication: gh repo edit --visibility public",
      );
    }
    if (action === "archive") return vcsWrite("gh repo archive");
  }
  if (group === "release") {
    if (action === "create" || action === "upload" || action === "edit")
      return destructive("package-publication", `package publication: gh release ${action}`);
    if (action === "delete" || action === "delete-asset")
      return destructive("repository-deletion", `repository deletion: gh release ${action}`);
  }
  if (group === "auth") {
    return action === "status" || action === "token"
      ? vcsRead(`gh auth ${action}`)
      : dangerous("credential-change", `credential change: gh auth ${action}`);
  }
  if (group === "extension" || group === "ext") {
    return action === "list" || action === "ls" || action === "browse" || action === "search"
      ? vcsRead(what)
      : dangerous("package-install", `package install: ${what}`);
  }
  if (group === "codespace" || group === "cs") {
    if (action === "ssh" || action === "code" || action === "cp")
      return dangerous("remote-execution", `remote execution: ${what}`);
  }
  if (group === "config") return action === "get" || action === "list" ? vcsRead(what) : vcsWrite(what);
  if (GH_READ_ACTIONS.has(action)) return vcsRead(what);
  return vcsWrite(what);
});

function ghApi(inv: Invocation): Classification {
  const parsed = parseArgs(inv.args.slice(1), ghApiSpec);
  let method: string | null = null;
  let fields = false;
  for (const option of parsed.options) {
    if ((option.name === "-X" || option.name === "--method") && option.value !== null)
      method = option.value.toUpperCase();
    if (
      option.name === "-f" ||
      option.name === "-F" ||
      option.name === "--field" ||
      option.name === "--raw-field" ||
      option.name === "--input"
    )
      fields = true;
  }
  method ??= fields ? "POST" : "GET";
  const path = parsed.positionals[0] ?? "";
  if (method === "GET" || method === "HEAD") return vcsRead(`gh api ${shown(path)}`);
  if (method === "DELETE" && GH_REPO_PATH.test(path))
    return destructive("repository-deletion", `repository deletion: gh api -X DELETE ${shown(path)}`);
  return dangerous("network-write", `network write: gh api -X ${method} ${shown(path)}`);
}
