/**
 * Project context files: `AGENTS.md` files written from what a directory's
 * source files contain (see ./analyze.ts), and the status of the repository's priority directories.
 * Everything stays inside the root (`INIT_DEEP_ROOT`, default this checkout): a requested path is resolved
 * and its real path (symbolic links followed) checked before anything is read; the walk never follows a
 * symbolic link, and AGENTS.md is written with O_NOFOLLOW, so no link can carry a write outside.
 */
import { constants, type Dirent } from "node:fs";
import { lstat, open, readdir, readFile, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { WebConfig } from "../infra/config";
import {
  type AgentsDoc,
  analyzeSource,
  analyzeTest,
  isSourceFile,
  isTestFile,
  renderAgentsMd,
  type SourceFacts,
  type TestFacts,
} from "./analyze";
import { pathNotADirectory, pathOutsideRoot } from "./errors";
import type { InitDeepAnswer, InitDeepInput, InitDeepStatus } from "./inputs";

export const AGENTS_FILE = "AGENTS.md";
/** Directories never walked. */
export const SKIPPED_DIRECTORIES = new Set([
  "node_modules",
  ".git",
  ".next",
  "dist",
  "build",
  "coverage",
  ".data",
]);
/** The repository's priority directories (`GET` reports those present). */
export const PRIORITY_DIRECTORIES = [
  "web/app/api",
  "web/lib",
  "web/components",
  "backend/src",
  "wrapper/src",
  "summarizer/src",
  "skills",
];
/** Per directory: source files read at most, and bytes read of each. */
const MAX_FILES_PER_DIRECTORY = 200;
const MAX_READ_BYTES = 256 * 1024;

type Config = Pick<WebConfig, "INIT_DEEP_ROOT">;

/** The checkout this process runs from: the nearest directory up from `start` whose package.json has workspaces. */
async function checkoutRoot(start: string): Promise<string> {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as { workspaces?: unknown };
      if (pkg.workspaces) return dir;
    } catch {
      // no package.json here: keep going up
    }
    if (dirname(dir) === dir) return resolve(start);
  }
}

/** The root's real path: INIT_DEEP_ROOT, or this checkout. */
export async function initDeepRoot(config: Config): Promise<string> {
  return realpath(config.INIT_DEEP_ROOT ? resolve(config.INIT_DEEP_ROOT) : await checkoutRoot(process.cwd()));
}

const isInside = (root: string, target: string) => {
  const rel = relative(root, target);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
};

/** The real path of a directory inside the root, or null: missing, not a directory, or resolving outside. */
async function realDirectoryInside(root: string, target: string): Promise<string | null> {
  try {
    const real = await realpath(target);
    if (!isInside(root, real)) return null;
    return (await lstat(real)).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/**
 * `path` as a directory inside the root, its real path checked too; 400 otherwise, before anything is read.
 * Past the text check, a missing path and one that resolves outside get the same answer (nothing is said
 * about what exists outside the root).
 */
export async function resolveInsideRoot(root: string, path: string): Promise<string> {
  if (isAbsolute(path) || path.includes("\0")) throw pathOutsideRoot();
  const target = resolve(root, path);
  if (!isInside(root, target)) throw pathOutsideRoot();
  const real = await realDirectoryInside(root, target);
  if (real === null) throw pathNotADirectory();
  return real;
}

interface Directory {
  path: string;
  depth: number;
  entries: Dirent[];
  sources: string[];
  /** `AGENTS.md` is there: a regular file, or a symbolic link (never written through). */
  agents: "none" | "file" | "link";
}

/** The directories under `start` down to `maxDepth`, parents first; symbolic links are not followed. */
async function walk(start: string, maxDepth: number): Promise<Directory[]> {
  const out: Directory[] = [];
  const visit = async (path: string, depth: number) => {
    const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    const agentsEntry = entries.find((e) => e.name === AGENTS_FILE);
    out.push({
      path,
      depth,
      entries,
      sources: entries.filter((e) => e.isFile() && isSourceFile(e.name)).map((e) => e.name),
      agents: !agentsEntry ? "none" : agentsEntry.isSymbolicLink() ? "link" : "file",
    });
    if (depth >= maxDepth) return;
    for (const entry of entries) {
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name))
        await visit(join(path, entry.name), depth + 1);
    }
  };
  await visit(start, 0);
  return out;
}

/** The first `MAX_READ_BYTES` of a regular file (never through a symbolic link). */
async function readStart(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(MAX_READ_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_READ_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

async function writeAgentsMd(dir: string, text: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const handle = await open(join(dir, AGENTS_FILE), flags, 0o644);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

async function hasAgentsFileOnDisk(dir: string): Promise<boolean> {
  try {
    return (await lstat(join(dir, AGENTS_FILE))).isFile();
  } catch {
    return false;
  }
}

/** Reads a directory's source files into facts (the first 200, the first 256 KB of each). */
async function factsOf(dir: Directory): Promise<{ sources: SourceFacts[]; tests: TestFacts[] }> {
  const sources: SourceFacts[] = [];
  const tests: TestFacts[] = [];
  for (const name of dir.sources.slice(0, MAX_FILES_PER_DIRECTORY)) {
    const text = await readStart(join(dir.path, name));
    if (isTestFile(name)) tests.push(analyzeTest(name, text));
    else sources.push(analyzeSource(name, text));
  }
  return { sources, tests };
}

/**
 * Walks `path` down to `maxDepth` and writes an AGENTS.md into each directory with source files, skipping
 * those that have one unless `force`. With `dryRun` nothing is written: `generated` says what would be.
 */
export async function generateAgentsFiles(config: Config, input: InitDeepInput): Promise<InitDeepAnswer> {
  const root = await initDeepRoot(config);
  const start = await resolveInsideRoot(root, input.path);
  const directories = await walk(start, input.maxDepth);
  const withSources = directories.filter((d) => d.sources.length > 0);
  const gets = new Set(withSources.map((d) => d.path));
  const hasOrGets = (dir: string) =>
    gets.has(dir) || directories.some((d) => d.path === dir && d.agents !== "none");

  // The nearest ancestor (inside the root) that has or gets an AGENTS.md.
  const parentOf = async (dir: string): Promise<string | null> => {
    let up = dir;
    while (up !== root) {
      up = dirname(up);
      if (!isInside(root, up)) return null;
      if (isInside(start, up) ? hasOrGets(up) : await hasAgentsFileOnDisk(up)) return up;
    }
    return null;
  };
  const parents = new Map<string, string | null>();
  for (const d of withSources) parents.set(d.path, await parentOf(d.path));

  const results: InitDeepAnswer["results"] = [];
  for (const dir of withSources) {
    const path = relative(root, dir.path) || ".";
    if (dir.agents !== "none" && !input.force) {
      results.push({ path, generated: false, skipped: true, error: null });
      continue;
    }
    try {
      if (dir.agents === "link") throw new Error(`${AGENTS_FILE} is a symbolic link: not written through`);
      const parent = parents.get(dir.path) ?? null;
      const doc: AgentsDoc = {
        directory: path,
        parentLink: parent ? relative(dir.path, join(parent, AGENTS_FILE)) : null,
        ...(await factsOf(dir)),
        children: withSources
          .filter((c) => parents.get(c.path) === dir.path)
          .map((c) => relative(dir.path, c.path)),
      };
      const text = renderAgentsMd(doc);
      if (!input.dryRun) await writeAgentsMd(dir.path, text);
      results.push({ path, generated: true, skipped: false, error: null });
    } catch (err) {
      results.push({ path, generated: false, skipped: false, error: (err as Error).message });
    }
  }
  const count = (f: (r: (typeof results)[number]) => boolean) => results.filter(f).length;
  const errors = count((r) => r.error !== null);
  return {
    success: errors === 0,
    dryRun: input.dryRun,
    summary: {
      total: results.length,
      generated: count((r) => r.generated),
      skipped: count((r) => r.skipped),
      errors,
    },
    results,
  };
}

/** Which priority directories under `path` exist and have an AGENTS.md; paths relative to the root. */
export async function agentsFilesStatus(config: Config, path = ""): Promise<InitDeepStatus> {
  const root = await initDeepRoot(config);
  const base = await resolveInsideRoot(root, path);
  const status: InitDeepStatus["status"] = [];
  for (const directory of PRIORITY_DIRECTORIES) {
    const full = join(base, directory);
    // Resolved with every link followed (`web` itself may be one), and counted only inside the root.
    const real = await realDirectoryInside(root, full);
    if (real === null) continue;
    status.push({
      directory,
      hasAgentsMd: await hasAgentsFileOnDisk(real),
      path: relative(root, join(full, AGENTS_FILE)),
    });
  }
  return {
    rootPath: relative(root, base) || ".",
    status,
    allGenerated: status.length > 0 && status.every((s) => s.hasAgentsMd),
  };
}
