/**
 * Paths an agent has no business reading: other processes' environments (`/proc/<pid>/environ`, `mem`) and
 * the platform's own state — its data directory (`.data`), the launcher's `secrets.json`, LOCAL_AGENTS_DIR,
 * and anything above the agent's home (the local driver puts the home inside the agent's directory, so
 * `~/..` leads to its service record and the other agents). Any word of a command or path of a tool naming
 * one makes the call dangerous, whatever the program. The asking agent's own directory (`ownDirs`) is not
 * protected from it: its working directory lives there. Globs match as the shell expands them: `.d*` names
 * `.data`, `*` does not, `/proc/*\/environ` is every process's environment.
 */
import { matches } from "./glob";
import { normalizePath } from "./paths";
import { type Classification, dangerous, shown } from "./types";
import {
  compileWorkspace,
  containerAgentWorkspace,
  type Workspace,
  type WorkspaceOptions,
} from "./workspace";

export interface PathGuardOptions {
  /** Absolute directories of the platform's state (LOCAL_AGENTS_DIR). */
  protectedDirs?: readonly string[];
  /** Absolute directories of the asking agent itself (`<LOCAL_AGENTS_DIR>/<agentId>`): not protected. */
  ownDirs?: readonly string[];
  /** The agent's working directory, home, and what it may read and write (default: the agent image's). */
  workspace?: WorkspaceOptions;
}

/** A compiled set of protected paths and the agent's workspace (`DEFAULT_PATH_GUARD`: an agent container's). */
export interface PathGuard {
  readonly dirs: readonly (readonly string[])[];
  readonly own: readonly (readonly string[])[];
  readonly workspace: Workspace;
}

export function pathGuard(options: PathGuardOptions = {}): PathGuard {
  const workspace = options.workspace ?? containerAgentWorkspace();
  return {
    dirs: absoluteSegments(options.protectedDirs),
    own: absoluteSegments(options.ownDirs ?? workspace.readable),
    workspace: compileWorkspace(workspace),
  };
}

function absoluteSegments(dirs: readonly string[] | undefined): string[][] {
  const result: string[][] = [];
  for (const dir of dirs ?? []) {
    const path = normalizePath(dir);
    if (path.absolute && path.segments.length > 0) result.push(path.segments);
  }
  return result;
}

export const DEFAULT_PATH_GUARD: PathGuard = pathGuard();

/** The platform's data directory, wherever it is reached from. */
const DATA_DIR = ".data";
/** The launcher's generated secrets (`.data/secrets.json`, or `$DATA_DIR/secrets.json`). */
const SECRETS_FILE = "secrets.json";
/** Files of `/proc/<pid>/` (and `/proc/<pid>/task/<tid>/`) that hold a process's secrets. */
const PROCESS_SECRETS = new Set(["environ", "mem"]);
/** Variables that point inside the agent's own directory: climbing above them reaches other agents. */
const AGENT_HOME_VARIABLES = ["~", "$home", "$openclaw_state_dir"];
/** Prefixes before a path inside one word: `--file=PATH`, `name@PATH` (curl), `file://PATH`. */
const FILE_URL = "file://";

/** The verdict for a word (an argument, a redirection target, a tool's path), or null when it is harmless. */
export function protectedPathVerdict(word: string, guard: PathGuard): Classification | null {
  // Cheap first: a path to any of these has a dot, a slash or a tilde.
  if (!word.includes("/") && !word.includes(".") && !word.includes("~")) return null;
  const verdict = checkPath(word, guard);
  if (verdict !== null) return verdict;
  const eq = word.indexOf("=");
  if (eq >= 0) {
    const after = checkPath(word.slice(eq + 1), guard);
    if (after !== null) return after;
  }
  const at = word.indexOf("@");
  if (at >= 0) return checkPath(word.slice(at + 1), guard);
  return null;
}

function checkPath(raw: string, guard: PathGuard): Classification | null {
  const text = raw.toLowerCase().startsWith(FILE_URL) ? raw.slice(FILE_URL.length) : raw;
  const path = normalizePath(text);
  const { segments } = path;
  if (path.absolute && segments.length >= 3 && matches(segments[0], "proc")) {
    const last = segments[segments.length - 1];
    for (const name of PROCESS_SECRETS) {
      if (matches(last, name)) return dangerous("environment-dump", `environment dump: ${shown(text)}`);
    }
  }
  if (path.absolute && guard.own.some((dir) => isInside(segments, dir))) return null;
  for (const segment of segments) {
    if (matches(segment, DATA_DIR)) return platformState(text);
  }
  if (segments.length > 0 && segments[segments.length - 1] === SECRETS_FILE) return platformState(text);
  if (path.absolute) {
    for (const dir of guard.dirs) if (startsWith(segments, dir)) return platformState(text);
  }
  if (climbsAboveAgentHome(text)) return platformState(text);
  return null;
}

function platformState(text: string): Classification {
  return dangerous("platform-state", `platform state read: ${shown(text)}`);
}

/** `segments` is `dir` or inside it, literally (no glob may widen an exception). */
function isInside(segments: readonly string[], dir: readonly string[]): boolean {
  if (segments.length < dir.length) return false;
  for (let i = 0; i < dir.length; i++) if (segments[i] !== dir[i]) return false;
  return true;
}

/** `segments` is `dir` or inside it (a glob segment matches what it would expand to). */
function startsWith(segments: readonly string[], dir: readonly string[]): boolean {
  if (segments.length < dir.length) return false;
  for (let i = 0; i < dir.length; i++) if (!matches(segments[i], dir[i])) return false;
  return true;
}

/** `~/..`, `$HOME/../x`: a `..` that leaves the agent's home (or state) directory. */
function climbsAboveAgentHome(text: string): boolean {
  const lower = text.toLowerCase().replaceAll("\\", "/");
  const slash = lower.indexOf("/");
  const head = slash < 0 ? lower : lower.slice(0, slash);
  if (slash < 0 || !AGENT_HOME_VARIABLES.some((start) => head === start || head.startsWith("~"))) {
    return false;
  }
  let depth = 0;
  for (const part of lower.slice(slash + 1).split("/")) {
    if (part === "..") depth--;
    else if (part !== "" && part !== ".") depth++;
    if (depth < 0) return true;
  }
  return false;
}
