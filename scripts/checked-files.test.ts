/**
 * `npm run check` type-checks every source file of the repository: each TypeScript and JavaScript file git
 * tracks is in a program one of its `tsc -p <project>` runs builds, and each JavaScript file asks for the
 * check itself (`// @ts-check`, for editors and for a program without `checkJs`).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const tsc = join(root, "node_modules/.bin/tsc");

interface Manifest {
  workspaces?: string[];
  scripts?: Record<string, string>;
}
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/** The projects `npm run check` compiles: the root's `check` and each workspace's `typecheck`, by `-p`. */
function checkedProjects(): string[] {
  const rootManifest = manifest(root);
  const runs = [
    { dir: root, script: rootManifest.scripts?.check ?? "" },
    ...(rootManifest.workspaces ?? []).map((workspace) => ({
      dir: join(root, workspace),
      script: manifest(join(root, workspace)).scripts?.typecheck ?? "",
    })),
  ];
  return runs.flatMap(({ dir, script }) =>
    [...script.matchAll(/\btsc\b[^&]*?-p\s+(\S+)/g)].map((m) => resolve(dir, m[1])),
  );
}

const tracked = () =>
  execFileSync("git", ["ls-files", "*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.mjs", "*.cjs"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);

describe("npm run check", () => {
  it("type-checks every TypeScript and JavaScript file git tracks", () => {
    const projects = checkedProjects();
    expect(projects).toContain(join(root, "scripts"));
    expect(projects).toContain(join(root, "wrapper/openclaw-plugin"));
    const listed = new Set<string>();
    for (const project of projects) {
      const files = execFileSync(tsc, ["-p", project, "--listFilesOnly"], { cwd: root, encoding: "utf8" });
      for (const file of files.split("\n")) if (file) listed.add(file.trim());
    }
    const unchecked = tracked().filter((file) => !listed.has(join(root, file)));
    expect(unchecked).toEqual([]);
  }, 300_000);

  it("has every JavaScript file ask for the check", () => {
    const javascript = tracked().filter((file) => /\.[cm]?js$/.test(file));
    expect(javascript.length).toBeGreaterThan(0);
    const unasked = javascript.filter(
      (file) => !readFileSync(join(root, file), "utf8").startsWith("// @ts-check\n"),
    );
    expect(unasked).toEqual([]);
  });
});
