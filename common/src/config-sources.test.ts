import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The services' sources: each parses its environment in its config.ts and passes values in. */
const SOURCES = [
  "backend/src",
  "wrapper/src",
  "summarizer/src",
  "web/lib",
  "web/app",
  "web/server.ts",
  "common/src",
];
/** Where reading the environment belongs: the config modules, and the parser they all call. */
const ALLOWED = [/(^|\/)config\.ts$/, /(^|\/)config\/index\.ts$/, /^common\/src\/env\.ts$/];
/** Tests and their helpers set up environments of their own. */
const TEST_ONLY = [/\.test\.tsx?$/, /(^|\/)testing(\/|\.ts$)/];

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (/\.tsx?$/.test(path)) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === ".next") return [];
    const child = relative(ROOT, join(full, entry.name));
    if (entry.isDirectory()) return sourceFiles(child);
    return /\.tsx?$/.test(entry.name) ? [child] : [];
  });
}

/** The code of a file without its comments (a comment may name `process.env` to say it is not read). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

describe("configuration is read in one place per service", () => {
  it("no source outside a config module reads process.env", () => {
    const files = SOURCES.flatMap(sourceFiles).filter(
      (file) => !ALLOWED.some((re) => re.test(file)) && !TEST_ONLY.some((re) => re.test(file)),
    );
    expect(files.length).toBeGreaterThan(50);
    const readers = files.filter((file) =>
      /\bprocess\.env\b/.test(withoutComments(readFileSync(join(ROOT, file), "utf8"))),
    );
    expect(readers).toEqual([]);
  });

  it("the check itself sees a read of process.env, and not one named in a comment", () => {
    expect(/\bprocess\.env\b/.test(withoutComments("const a = process.env.PATH;"))).toBe(true);
    expect(/\bprocess\.env\b/.test(withoutComments("// never process.env\n/* nor process.env */"))).toBe(
      false,
    );
  });
});
