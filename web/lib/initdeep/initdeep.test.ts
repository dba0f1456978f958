/** /api/init-deep on a fixture tree: real files, a symbolic link out of the root, an admin and a non-admin. */
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/init-deep/route";
import { makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";

const base = await mkdtemp(join(tmpdir(), "svc-init-deep-"));
const root = join(base, "root");
const outside = join(base, "outside");
useWebTestContext({ INIT_DEEP_ROOT: root });
afterAll(() => rm(base, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

const FILES: Record<string, string> = {
  "package.json": '{"name": "fixture"}',
  "src/index.ts": [
    "/**",
    " * Entry point of the fixture app: starts it and says its version.",
    " *",
    " * Second paragraph, not in the summary.",
    " */",
    'import { z } from "zod";',
    'import { helper } from "./lib/helper";',
    "export function startApp(): string { return helper(z.string().parse('x')); }",
    'export const VERSION = "1.2.3";',
  ].join("\n"),
  "src/index.test.ts": [
    'import { describe, it } from "vitest";',
    'describe("startApp", () => { it("starts with a name", () => {}); });',
  ].join("\n"),
  "src/lib/helper.ts": [
    "// Helpers for string work.",
    'import { readFile } from "node:fs/promises";',
    "export function helper(s: string) { return s; }",
    "export class Formatter {}",
    "export type Shape = { width: number };",
    "void readFile;",
  ].join("\n"),
  "src/lib/deep/a/y.ts": "export const deepY = 1;",
  "src/lib/deep/a/b/c/x.ts": "export const tooDeep = 1;",
  "node_modules/pkg/index.js": "module.exports = function hidden() {};",
  "dist/bundle.js": "export const built = 1;",
  "docs/readme.txt": "no source here",
  "existing/mod.ts": "export const existing = true;",
  "existing/AGENTS.md": "hand written\n",
  "trap/t.ts": "export const trapped = 1;",
  "web/lib/a.ts": "/** Web library a. */\nexport const a = 1;",
  "backend/src/server.ts": "export function serve() {}",
};

async function buildFixture() {
  await rm(base, { recursive: true, force: true });
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, "secret.ts"), "export const secret = 'outside';");
  await writeFile(join(outside, "victim.md"), "do not touch\n");
  await symlink(outside, join(root, "linked"));
  await symlink(join(outside, "victim.md"), join(root, "trap", "AGENTS.md"));
}
beforeEach(buildFixture);

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );
const read = (path: string) => readFile(join(root, path), "utf8");

async function admin() {
  const session = await signedInUser();
  await webContext().db.update(users).set({ isAdmin: true }).where(eq(users.id, session.user.id));
  return session;
}
type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
async function generate(jar: Jar | undefined, json?: unknown) {
  const res = await POST(makeRequest({ method: "POST", path: "/api/init-deep", jar, json }));
  return { status: res.status, body: (await res.json()) as Json };
}
async function status(path?: string) {
  const query = path === undefined ? "" : `?path=${encodeURIComponent(path)}`;
  const res = await GET(makeRequest({ path: `/api/init-deep${query}` }));
  return { status: res.status, body: (await res.json()) as Json };
}
const agentsFiles = ["src", "src/lib", "src/lib/deep/a", "web/lib", "backend/src"].map(
  (d) => `${d}/AGENTS.md`,
);

describe("POST /api/init-deep", () => {
  it("writes AGENTS.md from what the files contain: doc comments, exports, imports, tests, parent link", async () => {
    const { jar } = await admin();
    const { status: code, body } = await generate(jar, {});
    expect(code).toBe(200);
    expect(body.summary).toEqual({ total: 7, generated: 5, skipped: 2, errors: 0 });
    expect(body.success).toBe(true);
    expect(body.results).toEqual([
      { path: "backend/src", generated: true, skipped: false, error: null },
      { path: "existing", generated: false, skipped: true, error: null },
      { path: "src", generated: true, skipped: false, error: null },
      { path: "src/lib", generated: true, skipped: false, error: null },
      { path: "src/lib/deep/a", generated: true, skipped: false, error: null },
      { path: "trap", generated: false, skipped: true, error: null },
      { path: "web/lib", generated: true, skipped: false, error: null },
    ]);
    const src = await read("src/AGENTS.md");
    expect(src).toContain("### `index.ts`");
    expect(src).toContain("Entry point of the fixture app: starts it and says its version.");
    expect(src).not.toContain("Second paragraph");
    expect(src).toContain("- Exports: `startApp`, `VERSION`");
    expect(src).toContain("- Uses packages: `zod`");
    expect(src).toContain("- Imports locally: `./lib/helper`");
    expect(src).toContain("- Tested in: `index.test.ts`");
    expect(src).toContain('- `index.test.ts`: "startApp"; "starts with a name"');
    expect(src).toContain("- [lib/](lib/AGENTS.md)");
    expect(src).not.toContain("Parent:");
    const lib = await read("src/lib/AGENTS.md");
    expect(lib).toContain("Parent: [../AGENTS.md](../AGENTS.md)");
    expect(lib).toContain("Helpers for string work.");
    expect(lib).toContain("- Exports: `helper`, `Formatter`, `Shape`");
    expect(lib).toContain("- Uses packages: `node:fs`");
    expect(lib).toContain("- [deep/a/](deep/a/AGENTS.md)");
    expect(await read("src/lib/deep/a/AGENTS.md")).toContain("Parent: [../../AGENTS.md](../../AGENTS.md)");
    // Skipped directories, directories without source files, the link out and what is beyond maxDepth 5.
    for (const path of ["node_modules/pkg", "dist", "docs", ".", "src/lib/deep/a/b/c", "src/lib/deep"]) {
      expect(await exists(join(root, path, "AGENTS.md"))).toBe(false);
    }
    expect(await exists(join(outside, "AGENTS.md"))).toBe(false);
    expect(await read("existing/AGENTS.md")).toBe("hand written\n");
    expect(await readFile(join(outside, "victim.md"), "utf8")).toBe("do not touch\n");
    expect(JSON.stringify(body)).not.toContain(base);
  });

  it("dryRun reports what it would do and writes nothing", async () => {
    const { jar } = await admin();
    const { body } = await generate(jar, { dryRun: true });
    expect(body.dryRun).toBe(true);
    expect(body.summary).toEqual({ total: 7, generated: 5, skipped: 2, errors: 0 });
    for (const file of agentsFiles) expect(await exists(join(root, file))).toBe(false);
  });

  it("force replaces existing files, but never writes through a symbolic link", async () => {
    const { jar } = await admin();
    const { body } = await generate(jar, { force: true });
    expect(body.summary).toEqual({ total: 7, generated: 6, skipped: 0, errors: 1 });
    expect(body.success).toBe(false);
    expect(body.results.find((r: Json) => r.path === "trap")).toEqual({
      path: "trap",
      generated: false,
      skipped: false,
      error: "AGENTS.md is a symbolic link: not written through",
    });
    expect(await read("existing/AGENTS.md")).toContain("- Exports: `existing`");
    expect(await readFile(join(outside, "victim.md"), "utf8")).toBe("do not touch\n");
  });

  it("maxDepth limits the walk; path starts it lower", async () => {
    const { jar } = await admin();
    const shallow = await generate(jar, { maxDepth: 1, dryRun: true });
    expect(shallow.body.results.map((r: Json) => r.path)).toEqual(["existing", "src", "trap"]);
    const deep = await generate(jar, { path: "src/lib", maxDepth: 4 });
    expect(deep.body.results.map((r: Json) => r.path)).toEqual([
      "src/lib",
      "src/lib/deep/a",
      "src/lib/deep/a/b/c",
    ]);
    expect(await read("src/lib/deep/a/b/c/AGENTS.md")).toContain(
      "Parent: [../../AGENTS.md](../../AGENTS.md)",
    );
    // src has no AGENTS.md yet: src/lib's has no parent link.
    expect(await read("src/lib/AGENTS.md")).not.toContain("Parent:");
  });

  it("refuses paths that leave the root through .., an absolute path or a symbolic link (400, nothing written)", async () => {
    const { jar } = await admin();
    for (const path of ["../outside", "src/../../outside", outside]) {
      const { status: code, body } = await generate(jar, { path, force: true });
      expect(code, path).toBe(400);
      expect(body).toMatchObject({ error: "Path must stay inside the project root", field: "path" });
    }
    // Through the link: the same answer as a path that does not exist.
    for (const path of ["linked", "linked/", "nope"]) {
      const { status: code, body } = await generate(jar, { path, force: true });
      expect(code, path).toBe(400);
      expect(body).toMatchObject({ error: "Path is not a directory inside the project root", field: "path" });
    }
    expect(await exists(join(outside, "AGENTS.md"))).toBe(false);
    for (const file of agentsFiles) expect(await exists(join(root, file))).toBe(false);
  });

  it("bad input is 400 naming the field", async () => {
    const { jar } = await admin();
    const depth = await generate(jar, { maxDepth: "five" });
    expect(depth.status).toBe(400);
    expect(depth.body).toMatchObject({ error: "Depth must be a number", field: "maxDepth" });
    expect((await generate(jar, { maxDepth: 11 })).status).toBe(400);
    expect((await generate(jar, { force: "yes" })).body).toMatchObject({
      error: "Force must be true or false",
      field: "force",
    });
    expect((await generate(jar, { extra: 1 })).status).toBe(400);
  });

  it("needs a session (401) and an admin (403); nothing is written", async () => {
    expect((await generate(undefined, {})).status).toBe(401);
    const { jar } = await signedInUser();
    const { status: code, body } = await generate(jar, {});
    expect(code).toBe(403);
    expect(body.code).toBe("ADMIN_REQUIRED");
    for (const file of agentsFiles) expect(await exists(join(root, file))).toBe(false);
  });
});

describe("GET /api/init-deep (public)", () => {
  it("reports the priority directories present, relative to the root", async () => {
    const before = await status();
    expect(before).toEqual({
      status: 200,
      body: {
        rootPath: ".",
        status: [
          { directory: "web/lib", hasAgentsMd: false, path: "web/lib/AGENTS.md" },
          { directory: "backend/src", hasAgentsMd: false, path: "backend/src/AGENTS.md" },
        ],
        allGenerated: false,
      },
    });
    const { jar } = await admin();
    await generate(jar, { path: "web" });
    const half = await status();
    expect(half.body.status.map((s: Json) => s.hasAgentsMd)).toEqual([true, false]);
    expect(half.body.allGenerated).toBe(false);
    await generate(jar, {});
    expect((await status()).body.allGenerated).toBe(true);
  });

  it("never looks outside the root", async () => {
    for (const path of ["..", "../outside", "linked", outside]) {
      const { status: code, body } = await status(path);
      expect(code, path).toBe(400);
      expect(JSON.stringify(body)).not.toContain(base);
    }
    const nested = await status("src");
    expect(nested.body).toEqual({ rootPath: "src", status: [], allGenerated: false });
  });

  it("answers the same for what exists outside (through the link) as for what exists nowhere", async () => {
    await mkdir(join(outside, "dir"));
    const answers = [];
    for (const path of [
      "linked",
      "linked/dir",
      "linked/secret.ts",
      "linked/missing",
      "missing",
      "src/index.ts",
    ]) {
      answers.push(await status(path));
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual({
      status: 400,
      body: {
        error: "Path is not a directory inside the project root",
        code: "invalid_request",
        field: "path",
      },
    });
  });

  it("a priority directory reached through a link to outside (here `web`) is absent", async () => {
    await mkdir(join(outside, "web/app/api"), { recursive: true });
    await writeFile(join(outside, "web/app/api/AGENTS.md"), "outside\n");
    await mkdir(join(root, "probe/backend/src"), { recursive: true });
    await symlink(join(outside, "web"), join(root, "probe/web"));
    expect((await status("probe")).body).toEqual({
      rootPath: "probe",
      status: [{ directory: "backend/src", hasAgentsMd: false, path: "probe/backend/src/AGENTS.md" }],
      allGenerated: false,
    });
  });
});
