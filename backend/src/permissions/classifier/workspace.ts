/**
 * The agent's own directory (issue #24): where its commands run (OpenClaw's workspace), its home, what it may
 * read (its own directory) and write (its workspace), and the platform's files inside them it may not touch.
 * Paths are resolved against it (relative ones after the line's `cd`s, `~`/`$HOME` against the home, globs
 * widened: `.*` may be `..`). Reads must stay inside a readable directory and out of platform paths; writes
 * inside the workspace, out of platform paths, and under no segment starting with `.` (configuration such as
 * `.git/config` or `.npmrc` makes programs rated safe run commands) or `-` (a later glob would hand it to a
 * program as an option). The classifier reads text, not the file system: a link leading out is not seen.
 *
 * Layouts. Local (hosting/local.ts): `<agentsDir>/<agentId>/`, workspace `state/workspace`, home `home/` (or
 * the directory itself); `service.json`, `wrapper.log`, `state/platform/` and `state/openclaw.json` are the
 * platform's. Docker and Railway (Dockerfile.agent): state `/data/openclaw`, workspace
 * `/data/openclaw/workspace` or `~/.openclaw/workspace`, home `/home/node`.
 */
import { join } from "node:path/posix";
import { GLOB, matches } from "./glob";
import { HEREDOC, SUBSTITUTION } from "./scan";
import { type Classification, dangerous, shown } from "./types";

export type Segments = readonly string[];

/** Absolute directories (and files, for `platform`), as the driver lays the agent out. */
export interface WorkspaceOptions {
  /** The working directories the agent's commands may start in (OpenClaw's workspace). */
  cwd: readonly string[];
  /** What `~` and `$HOME` may be. */
  home: readonly string[];
  /** Where reads are the agent's own business. */
  readable: readonly string[];
  /** Where writes are: the workspace. */
  writable: readonly string[];
  /** The platform's files and directories inside the agent's own directory. */
  platform: readonly string[];
}

export interface Workspace {
  readonly cwd: readonly Segments[];
  readonly home: readonly Segments[];
  readonly readable: readonly Segments[];
  readonly writable: readonly Segments[];
  /** Lower case: matched the way protected paths are (a case-insensitive file system is not a way in). */
  readonly platform: readonly Segments[];
}

/** The local driver's agent directory `<agentsDir>/<agentId>` (hosting/local.ts, local-store.ts). */
export function localAgentWorkspace(agentsDir: string, agentId: string): WorkspaceOptions {
  const dir = join(agentsDir, agentId);
  const workspace = join(dir, "state", "workspace");
  return {
    cwd: [workspace],
    home: [join(dir, "home"), dir],
    readable: [dir],
    writable: [workspace],
    platform: [
      join(dir, "service.json"),
      join(dir, "wrapper.log"),
      join(dir, "state", "platform"),
      join(dir, "state", "openclaw.json"),
    ],
  };
}

/** The agent image's OPENCLAW_STATE_DIR and its user's home (Dockerfile.agent). */
export const CONTAINER_STATE_DIR = "/data/openclaw";
export const CONTAINER_HOME = "/home/node";

/** Docker and Railway agents: the agent image's layout (see the file's doc). */
export function containerAgentWorkspace(): WorkspaceOptions {
  const workspaces = [join(CONTAINER_STATE_DIR, "workspace"), join(CONTAINER_HOME, ".openclaw", "workspace")];
  return {
    cwd: workspaces,
    home: [CONTAINER_HOME],
    readable: [CONTAINER_STATE_DIR, CONTAINER_HOME],
    writable: workspaces,
    platform: [join(CONTAINER_STATE_DIR, "platform"), join(CONTAINER_STATE_DIR, "openclaw.json")],
  };
}

export function compileWorkspace(options: WorkspaceOptions): Workspace {
  return {
    cwd: absolute(options.cwd),
    home: absolute(options.home),
    readable: absolute(options.readable),
    writable: absolute(options.writable),
    platform: absolute(options.platform).map((path) => path.map((segment) => segment.toLowerCase())),
  };
}

function absolute(paths: readonly string[]): Segments[] {
  const result: Segments[] = [];
  for (const path of paths) {
    if (!path.startsWith("/")) continue;
    const resolved = walk([[]], path);
    if (resolved !== null) result.push(...resolved);
  }
  return result;
}

/** Resolutions of one word kept per path; more (globs that may climb) is not resolved. */
const MAX_RESOLUTIONS = 16;
const ROOT: readonly Segments[] = [[]];

/**
 * Where `word` may lead: every absolute path it resolves to, from any of the working directories `cwds`
 * (null: not known) and homes. Null when it cannot be known before the line runs: a computed value
 * (`$(…)`, a variable other than HOME and PWD), `~user`, a relative path from an unknown directory.
 */
export function resolvePath(
  word: string,
  cwds: readonly Segments[] | null,
  homes: readonly Segments[],
): Segments[] | null {
  if (word.includes(SUBSTITUTION) || word.includes(HEREDOC)) return null;
  let bases: readonly Segments[] | null = cwds;
  let rest = word;
  if (word.startsWith("/")) bases = ROOT;
  else if (word.startsWith("~")) {
    const slash = word.indexOf("/");
    const head = slash < 0 ? word : word.slice(0, slash);
    if (head === "~") bases = homes;
    else if (head === "~+") bases = cwds;
    else return null;
    rest = slash < 0 ? "" : word.slice(slash);
  } else if (startsWithVariable(word, "$HOME")) {
    bases = homes;
    rest = word.slice(5);
  } else if (startsWithVariable(word, "$PWD")) {
    rest = word.slice(4);
  }
  if (bases === null || bases.length === 0 || rest.includes("$")) return null;
  return walk(bases, rest);
}

function startsWithVariable(word: string, variable: string): boolean {
  return word.startsWith(variable) && (word.length === variable.length || word[variable.length] === "/");
}

function walk(bases: readonly Segments[], rest: string): Segments[] | null {
  let current: string[][] = bases.map((base) => [...base]);
  for (const part of rest.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      for (const path of current) path.pop();
      continue;
    }
    if (part.startsWith(".") && GLOB.test(part) && (matches(part, "..") || matches(part, "."))) {
      // `.*` also matches `.` and `..` (bash before 5.2): every one of them is a way.
      const next: string[][] = [];
      for (const path of current) next.push(path.slice(0, -1), [...path], [...path, part]);
      if (next.length > MAX_RESOLUTIONS) return null;
      current = next;
      continue;
    }
    for (const path of current) path.push(part);
  }
  return current;
}

/** `path` is `dir` or inside it, literally: a glob above `dir`'s end may lead anywhere. */
export function isInside(path: Segments, dir: Segments): boolean {
  if (path.length < dir.length) return false;
  for (let i = 0; i < dir.length; i++) if (path[i] !== dir[i]) return false;
  return true;
}

/**
 * `path` names the platform's `entry` or something inside it; with `recursive`, also a directory above it
 * (a recursive read reaches it). A glob segment matches what it would expand to; `**` any depth.
 */
function reachesPlatform(path: Segments, entry: Segments, recursive: boolean): boolean {
  const n = Math.min(path.length, entry.length);
  for (let i = 0; i < n; i++) {
    const segment = path[i].toLowerCase();
    if (segment === "**") return true;
    if (!matches(segment, entry[i])) return false;
  }
  return path.length >= entry.length || recursive;
}

/** The dangerous verdict for reading `word` (`how`: the program, for the reason), or null. */
export function readVerdict(
  word: string,
  how: string,
  cwds: readonly Segments[] | null,
  workspace: Workspace,
  recursive: boolean,
): Classification | null {
  const resolved = resolvePath(word, cwds, workspace.home);
  if (resolved === null) return unresolved(how, word);
  for (const path of resolved) {
    if (!workspace.readable.some((dir) => isInside(path, dir))) {
      return dangerous(
        "outside-agent-directory",
        `path outside the agent's directory: ${subject(how, word)}`,
      );
    }
    for (const entry of workspace.platform) {
      if (reachesPlatform(path, entry, recursive)) return platformState("read", how, word);
    }
  }
  return null;
}

/** The dangerous verdict for writing `word`, or null when it is a file of the agent's workspace. */
export function writeVerdict(
  word: string,
  how: string,
  cwds: readonly Segments[] | null,
  workspace: Workspace,
): Classification | null {
  const resolved = resolvePath(word, cwds, workspace.home);
  if (resolved === null) return unresolved(how, word);
  for (const path of resolved) {
    const dir = workspace.writable.find((candidate) => isInside(path, candidate));
    if (dir === undefined) {
      return dangerous(
        "write-outside-workspace",
        `write outside the agent's workspace: ${subject(how, word)}`,
      );
    }
    for (const entry of workspace.platform) {
      if (reachesPlatform(path, entry, false)) return platformState("write", how, word);
    }
    for (let i = dir.length; i < path.length; i++) {
      const first = path[i][0];
      if (first === ".") {
        return dangerous("configuration-write", `configuration file write: ${subject(how, word)}`);
      }
      if (first === "-")
        return dangerous("option-like-name", `file named like an option: ${subject(how, word)}`);
    }
  }
  return null;
}

function unresolved(how: string, word: string): Classification {
  const text = word.replaceAll(SUBSTITUTION, "$(…)");
  return dangerous("unresolved-path", `path not known before the command runs: ${subject(how, text)}`);
}

function platformState(kind: "read" | "write", how: string, word: string): Classification {
  return dangerous("platform-state", `platform state ${kind}: ${subject(how, word)}`);
}

/** `how` (the program or redirection, empty for a tool) and the word, for a reason. */
function subject(how: string, word: string): string {
  return how === "" ? shown(word) : `${how} ${shown(word)}`;
}
