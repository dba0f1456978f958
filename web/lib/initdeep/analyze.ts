/**
 * What a directory's source files really contain, read from their text: each file's leading doc comment,
 * its exports, its imports (packages and local modules), and the tests beside it with their `describe` /
 * `it` titles. Then the AGENTS.md made from it.
 */

/** Extensions of source files (JavaScript and TypeScript, as this platform is written). */
export const SOURCE_EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;
const DECLARATION_FILE = /\.d\.[cm]?ts$/;

export const isSourceFile = (name: string) =>
  SOURCE_EXTENSIONS.some((ext) => name.endsWith(ext)) && !DECLARATION_FILE.test(name);
export const isTestFile = (name: string) => TEST_FILE.test(name);

export interface SourceFacts {
  name: string;
  /** The first paragraph of the leading doc comment, on one line; null without one. */
  summary: string | null;
  exports: string[];
  packages: string[];
  locals: string[];
}

export interface TestFacts {
  name: string;
  /** `describe` and `it`/`test` titles, in order (the first 12). */
  titles: string[];
}

const unique = (items: string[]) => [...new Set(items)];

/** The leading comment (after a shebang and directives), first paragraph, markers removed. */
function leadingComment(text: string): string | null {
  const body = text.replace(/^#!.*\n/, "").replace(/^(\s*["']use (client|server|strict)["'];?\s*)+/, "");
  const block = /^\s*\/\*\*?([\s\S]*?)\*\//.exec(body);
  let raw: string | null = null;
  if (block) {
    raw = block[1]
      .split("\n")
      .map((line) => line.replace(/^\s*\*\s?/, ""))
      .join("\n");
  } else {
    const lines = /^(\s*\/\/.*\n)+/.exec(body);
    if (lines) raw = lines[0].replace(/^\s*\/\/\s?/gm, "");
  }
  if (!raw) return null;
  const paragraph = raw.trim().split(/\n\s*\n/)[0] ?? "";
  const oneLine = paragraph.replace(/\s+/g, " ").trim();
  if (!oneLine || oneLine.startsWith("@") || /^biome-ignore|^eslint|^@ts-/.test(oneLine)) return null;
  return oneLine.length > 400 ? `${oneLine.slice(0, 397)}...` : oneLine;
}

/** Names a module exports (`default` for a default export; re-exports as `* from "x"`). */
function exportsOf(text: string): string[] {
  const names: string[] = [];
  const declaration =
    /^\s*export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of text.matchAll(declaration)) names.push(m[2]);
  for (const m of text.matchAll(/^\s*export\s+default\b/gm)) {
    if (m) names.push("default");
  }
  for (const m of text.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const part of m[1].split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .at(-1)
        ?.trim();
      if (name) names.push(name);
    }
  }
  for (const m of text.matchAll(/^\s*export\s+\*\s+(?:as\s+([\w$]+)\s+)?from\s+["']([^"']+)["']/gm)) {
    names.push(m[1] ?? `* from "${m[2]}"`);
  }
  return unique(names);
}

/** Module specifiers imported or re-exported (static, dynamic, require). */
function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /^\s*import\s+(?:type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/gm,
    /^\s*export\s+[^"';]*?\s+from\s+["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) specifiers.push(m[1]);
  return unique(specifiers);
}

const isLocal = (specifier: string) => specifier.startsWith(".") || specifier.startsWith("@/");

/** The package a specifier names (`@scope/name`, `name`, `node:fs`). */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

export function analyzeSource(name: string, text: string): SourceFacts {
  const imports = importsOf(text);
  return {
    name,
    summary: leadingComment(text),
    exports: exportsOf(text),
    packages: unique(imports.filter((s) => !isLocal(s)).map(packageOf)),
    locals: imports.filter(isLocal),
  };
}

export function analyzeTest(name: string, text: string): TestFacts {
  const titles: string[] = [];
  for (const m of text.matchAll(/\b(?:describe|it|test)(?:\.\w+)?\(\s*(["'`])((?:\\.|(?!\1).)*)\1/g)) {
    titles.push(m[2]);
    if (titles.length >= 12) break;
  }
  return { name, titles };
}

/** The source file a test file is beside (same stem), when there is one. */
function testedBy(source: string, tests: TestFacts[]): string[] {
  const stem = source.replace(/\.[^.]+$/, "");
  return tests.filter((t) => t.name.replace(TEST_FILE, "") === stem).map((t) => t.name);
}

const code = (items: string[]) => items.map((i) => `\`${i}\``).join(", ");

export interface AgentsDoc {
  /** The directory relative to the root (`.` for the root). */
  directory: string;
  /** The nearest ancestor's AGENTS.md, relative to this directory; null at the top. */
  parentLink: string | null;
  sources: SourceFacts[];
  tests: TestFacts[];
  /** Subdirectories that have (or get) an AGENTS.md. */
  children: string[];
}

/** The AGENTS.md text of a directory. */
export function renderAgentsMd(doc: AgentsDoc): string {
  const lines: string[] = [`# ${doc.directory === "." ? "Project root" : doc.directory}`, ""];
  lines.push(
    "<!-- Generated by POST /api/init-deep from the files in this directory. Edit freely; " +
      "regenerating with `force` replaces it. -->",
    "",
  );
  if (doc.parentLink) lines.push(`Parent: [${doc.parentLink}](${doc.parentLink})`, "");
  const nonTests = doc.sources;
  lines.push(
    `${nonTests.length} source file${nonTests.length === 1 ? "" : "s"}` +
      (doc.tests.length ? `, ${doc.tests.length} test file${doc.tests.length === 1 ? "" : "s"}` : "") +
      ".",
    "",
  );
  if (nonTests.length > 0) {
    lines.push("## Files", "");
    for (const file of nonTests) {
      lines.push(`### \`${file.name}\``, "");
      if (file.summary) lines.push(file.summary, "");
      if (file.exports.length) lines.push(`- Exports: ${code(file.exports)}`);
      if (file.packages.length) lines.push(`- Uses packages: ${code(file.packages)}`);
      if (file.locals.length) lines.push(`- Imports locally: ${code(file.locals)}`);
      const tests = testedBy(file.name, doc.tests);
      if (tests.length) lines.push(`- Tested in: ${code(tests)}`);
      lines.push("");
    }
  }
  if (doc.tests.length > 0) {
    lines.push("## Tests", "");
    for (const test of doc.tests) {
      lines.push(
        `- \`${test.name}\`${test.titles.length ? `: ${test.titles.map((t) => `"${t}"`).join("; ")}` : ""}`,
      );
    }
    lines.push("");
  }
  if (doc.children.length > 0) {
    lines.push("## Subdirectories", "");
    for (const child of doc.children) lines.push(`- [${child}/](${child}/AGENTS.md)`);
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
