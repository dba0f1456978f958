/**
 * The OpenAPI documents as the running servers serve them — the web's `/api/openapi.json`, the backend's and
 * the summarizer's `/openapi.json` — pass a standard linter and give a typed client (issue 25 item 8):
 * - Redocly's recommended rules (`redocly.yaml` at the root): no error, and every warning either fixed or
 *   listed with its reason in `.redocly.lint-ignore.yaml` (each listed one still happens);
 * - openapi-typescript makes each document's types, and TypeScript type-checks calls of openapi-fetch with
 *   them: a right call compiles, a wrong path or body does not (`@ts-expect-error`).
 * Offline: every tool is installed.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Config, lintFromString, loadConfig, type NormalizedProblem } from "@redocly/openapi-core";
import { openApiTypes } from "@svc/openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ServiceName, useRunningServers } from "../../testing/running-servers";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const servers = useRunningServers({ web: {}, backend: {}, summarizer: {} });

/** Where each service serves its document. */
const DOCUMENT_PATHS: Record<ServiceName, string> = {
  web: "/api/openapi.json",
  backend: "/openapi.json",
  summarizer: "/openapi.json",
};
const SERVICES = Object.keys(DOCUMENT_PATHS) as ServiceName[];
/** The name a document is linted under: the ignore file lists its exceptions under that name. */
const lintedName = (service: ServiceName) => `served/${service}.json`;

const documents = new Map<ServiceName, string>();
let config: Config;
let work: string;
beforeAll(async () => {
  for (const service of SERVICES) {
    const res = await fetch(`${servers[service].url}${DOCUMENT_PATHS[service]}`);
    expect(res.status, service).toBe(200);
    documents.set(service, await res.text());
  }
  config = await loadConfig({ configPath: join(root, "redocly.yaml") });
  work = await mkdtemp(join(tmpdir(), "svc-openapi-client-"));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const described = (p: NormalizedProblem) =>
  `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`;

async function lint(service: ServiceName): Promise<NormalizedProblem[]> {
  return lintFromString({
    source: documents.get(service) as string,
    absoluteRef: join(root, lintedName(service)),
    config,
  });
}

describe("Redocly's recommended rules on the served documents", () => {
  it.each(SERVICES)("%s: no error, no warning that is not listed with its reason", async (service) => {
    const problems = await lint(service);
    expect(problems.filter((p) => p.severity === "error").map(described)).toEqual([]);
    expect(problems.filter((p) => !p.ignored).map(described)).toEqual([]);
  });

  it("every exception listed still happens (the list does not outlive its reasons)", async () => {
    const listed = parse(await readFile(join(root, ".redocly.lint-ignore.yaml"), "utf8")) as Record<
      string,
      Record<string, string[]>
    >;
    const seen: Record<string, Record<string, string[]>> = {};
    for (const service of SERVICES) {
      for (const problem of (await lint(service)).filter((p) => p.ignored)) {
        seen[lintedName(service)] ??= {};
        const rules = seen[lintedName(service)];
        rules[problem.ruleId] ??= [];
        rules[problem.ruleId].push(problem.location[0]?.pointer as string);
      }
    }
    const sorted = (byFile: Record<string, Record<string, string[]>>) =>
      Object.fromEntries(
        Object.entries(byFile).map(([file, rules]) => [
          file,
          Object.fromEntries(Object.entries(rules).map(([rule, pointers]) => [rule, [...pointers].sort()])),
        ]),
      );
    expect(sorted(seen)).toEqual(sorted(listed));
  });
});

/** A typed call of each service that must compile, and wrong ones that must not. */
const TYPED_CALLS: Record<ServiceName, string> = {
  web: `
    const run = await client.POST("/api/runtime/character-qa", { body: { dimensions: ["voice"] } });
    const overall: number | undefined = run.data?.run.overallScore;
    const version = await client.GET("/api/runtime/version");
    // @ts-expect-error a dimension the document does not list
    await client.POST("/api/runtime/character-qa", { body: { dimensions: ["humour"] } });
    // @ts-expect-error a path the document does not have
    await client.GET("/api/no-such-route");
    return [overall, version.response.status];`,
  backend: `
    const chat = await client.POST("/api/ai/chat", { body: { messages: [{ role: "user", content: "Hi?" }] } });
    const health = await client.GET("/health");
    const status: "ok" | "unhealthy" | undefined = health.data?.status;
    // @ts-expect-error messages is a list of messages
    await client.POST("/api/ai/chat", { body: { messages: "Hi?" } });
    return [chat.response.status, status];`,
  summarizer: `
    const page = await client.POST("/api/summarize", { body: { url: "https://example.org/" } });
    const words: number | undefined = page.data?.wordCount;
    // @ts-expect-error a summary has no links
    page.data?.links;
    // @ts-expect-error url is required
    await client.POST("/api/extract", { body: {} });
    return words;`,
};

describe("a typed client of each served document", () => {
  it("openapi-typescript makes its types, and calls of openapi-fetch type-check against them", async () => {
    const files: string[] = [];
    for (const service of SERVICES) {
      const document = JSON.parse(documents.get(service) as string) as Record<string, unknown>;
      await writeFile(join(work, `${service}-api.ts`), await openApiTypes(document));
      const calls = join(work, `${service}-calls.ts`);
      await writeFile(
        calls,
        [
          `import createClient from "openapi-fetch";`,
          `import type { paths } from "./${service}-api";`,
          `const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });`,
          `export async function calls() {${TYPED_CALLS[service]}\n}`,
          "",
        ].join("\n"),
      );
      files.push(calls);
    }
    await writeFile(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          lib: ["ES2023", "DOM"],
          module: "ESNext",
          moduleResolution: "bundler",
          types: [],
          // The temporary directory has no node_modules: the client comes from the project's.
          paths: { "openapi-fetch": [join(root, "node_modules/openapi-fetch/dist/index.d.mts")] },
        },
        files,
      }),
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const checked = await promisify(execFile)(process.execPath, [tsc, "-p", work]).then(
      () => "",
      (err: { stdout?: string; message: string }) => err.stdout || err.message,
    );
    expect(checked).toBe("");
  });
});
