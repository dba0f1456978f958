/**
 * The shared shape of package-manager rules: information subcommands are safe (package info),
 * installing/removing/updating is a package install, running scripts or packages is a package run (the
 * package's own command is classified too), publishing is destructive (package publication).
 */
import { firstPositional, type OptionSpec, optionSpec } from "../options";
import { type Invocation, isVersionQuery, type Rule } from "../registry";
import { type Classification, dangerous, destructive, safe, shown, worse } from "../types";

export type Kind = "info" | "install" | "run" | "publish" | "unknown";

export interface Manager {
  spec?: OptionSpec;
  info?: readonly string[];
  install?: readonly string[];
  run?: readonly string[];
  publish?: readonly string[];
  /** Subcommands that run a package's command given after them (`npm exec`, `yarn dlx`). */
  runsPackage?: readonly string[];
  /** Verdict without a subcommand. */
  bare: Kind;
  /** Verdict for a subcommand not listed (yarn/pnpm run scripts by name). */
  other: Kind;
  /** Decides special cases first; null to fall through to the table. */
  special?: (inv: Invocation, sub: string, rest: readonly string[]) => Classification | null;
}

export function packageVerdict(kind: Kind, what: string): Classification {
  switch (kind) {
    case "info":
      return safe("package-info", `package info: ${shown(what)}`);
    case "install":
      return dangerous("package-install", `package install: ${shown(what)}`);
    case "run":
      return dangerous("package-run", `package run: ${shown(what)}`);
    case "publish":
      return destructive("package-publication", `package publication: ${shown(what)}`);
    default:
      return dangerous("unknown-command", `unknown command: ${shown(what)}`);
  }
}

const NO_OPTIONS = optionSpec();

export function managerRule(manager: Manager): Rule {
  const kinds = new Map<string, Kind>();
  for (const sub of manager.info ?? []) kinds.set(sub, "info");
  for (const sub of manager.install ?? []) kinds.set(sub, "install");
  for (const sub of manager.run ?? []) kinds.set(sub, "run");
  for (const sub of manager.publish ?? []) kinds.set(sub, "publish");
  const runsPackage = new Set(manager.runsPackage ?? []);
  const spec = manager.spec ?? NO_OPTIONS;
  return (inv) => {
    const found = firstPositional(inv.args, spec);
    if (found === null) {
      if (isVersionQuery(inv.args) || inv.args.includes("--version"))
        return packageVerdict("info", `${inv.name} --version`);
      return packageVerdict(manager.bare, inv.name);
    }
    const sub = found.word;
    const rest = inv.args.slice(found.index + 1);
    const special = manager.special?.(inv, sub, rest);
    if (special) return special;
    const what = `${inv.name} ${sub}`;
    if (runsPackage.has(sub)) return runPackage(inv, what, rest);
    return packageVerdict(kinds.get(sub) ?? manager.other, what);
  };
}

/** `npx pkg args`: a package run, at least as severe as the package's own command. */
export function runPackage(inv: Invocation, what: string, words: readonly string[]): Classification {
  const own = packageVerdict("run", `${what} ${words[0] ?? ""}`);
  const command = words[0] === "--" ? words.slice(1) : words;
  if (command.length === 0) return own;
  const program = withoutVersion(command[0]);
  return worse(own, inv.argv([program, ...command.slice(1)]));
}

/** `prisma@5.1.0` → `prisma`, `@scope/cli@2` → `@scope/cli`. */
function withoutVersion(spec: string): string {
  const at = spec.lastIndexOf("@");
  return at > 0 ? spec.slice(0, at) : spec;
}
