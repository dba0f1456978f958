import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dashboardAreas } from "../../web/app/(dashboard)/areas";

const root = fileURLToPath(new URL("../..", import.meta.url));
const docs = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
const files = ["README.md", ...docs];
const read = (file: string) => readFileSync(join(root, file), "utf8");
/** The text outside fenced code blocks (a diagram or a shell example is not a link). */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
const anchorsOf = (file: string) =>
  new Set([...prose(read(file)).matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1].trim())));

describe("the README and docs/", () => {
  it("link only to files and headings that exist inside the repository", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split("#");
        const linked = path ? resolve(root, dirname(file), decodeURIComponent(path)) : join(root, file);
        const inside = !relative(root, linked).startsWith("..");
        if (!inside || !existsSync(linked)) broken.push(`${file}: ${target}`);
        else if (anchor && linked.endsWith(".md") && !anchorsOf(relative(root, linked)).has(anchor))
          broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("say what a behaviour is instead of sending the reader to files outside the repository", () => {
    for (const file of files) expect(read(file), file).not.toMatch(/\.\.\/shared|\/work\/|SPEC\.md/);
  });

  it("list every page of the dashboard and every page outside it", () => {
    const outside = readdirSync(join(root, "web/app"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, "web/app", entry.name, "page.tsx")))
      .map((entry) => `/${entry.name}`);
    const pages = [...dashboardAreas.map((area) => area.href), ...outside, "/", "/docs"];
    for (const file of ["README.md", "docs/dashboard.md"]) {
      const text = read(file);
      for (const page of pages) expect(text, `${file} lists ${page}`).toContain(`(\`${page}\``);
    }
  });
});
