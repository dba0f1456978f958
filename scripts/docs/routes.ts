/**
 * Writes docs/routes.md (`npm run docs:routes`): one table per service, built from the OpenAPI document
 * the service serves and from the code that serves each route (see HEADER for how each column is found).
 * scripts/docs/routes.test.ts fails when the file differs from what this makes.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createLogger } from "@svc/common";
import type { OpenApiDocument } from "@svc/common/openapi/index";
import { connectDatabase } from "@svc/db";
import { createApp } from "../../backend/src/app";
import { loadBackendConfig } from "../../backend/src/config";
import { backendOpenApiDocument } from "../../backend/src/openapi";
import { createPermissionBus } from "../../backend/src/permissions/bus";
import { createSummarizerApp } from "../../summarizer/src/app";
import { loadSummarizerConfig } from "../../summarizer/src/config";
import { summarizerOpenApiDocument } from "../../summarizer/src/openapi";
import { webOpenApiDocument } from "../../web/lib/infra/openapi/document";
import { routeModules } from "../../web/lib/infra/testing/route-files";
import { resolveSpecifier, scanFile } from "./code-scan";
import { expressRouteFiles, type RegisteredEntry } from "./express-files";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const WEB_ROOT = join(ROOT, "web");
export const ROUTES_DOC = join(ROOT, "docs/routes.md");

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface RouteRow {
  method: string;
  path: string;
  auth: string;
  /** Absolute; undefined when no file serves the route (a problem). */
  file: string | undefined;
  area: string;
  backendRoutes: readonly string[];
}

export interface ServiceRoutes {
  name: "web" | "backend" | "summarizer";
  document: OpenApiDocument;
  rows: RouteRow[];
  /** What keeps the table from being right: a route without an operation or the other way round. */
  problems: string[];
}

type Security = Record<string, string[]>[] | undefined;

/** The operation's security requirements in words: the alternatives, `or` between them. */
export function authOf(security: Security): string {
  const alternatives = (security ?? []).map((requirement) => {
    const names = Object.keys(requirement);
    if (names.length === 0) return "public";
    if (names.includes("userSignature")) return "internal key + signed user";
    return names
      .map((name) => {
        const scopes = requirement[name].map((s) => `\`${s}\``).join(", ");
        const words = SCHEME_WORDS[name] ?? name;
        return scopes ? `${words} ${scopes}` : words;
      })
      .join(" + ");
  });
  return alternatives.length === 0 ? "public" : alternatives.join(" or ");
}

const SCHEME_WORDS: Record<string, string> = {
  session: "session",
  apiKey: "API key",
  internalKey: "internal key",
  gatewayToken: "agent's gateway token",
  metricsToken: "metrics token",
  webhookSecret: "webhook secret",
};

interface DocumentedOperation {
  method: string;
  path: string;
  security: Security;
  backendRoutes: readonly string[];
}

function operationsOf(document: OpenApiDocument): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method] as { security?: Security; "x-backend-routes"?: string[] } | undefined;
      if (!op) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        security: op.security,
        backendRoutes: op["x-backend-routes"] ?? [],
      });
    }
  }
  return operations;
}

/** Non-test sources below `dir` (or `dir` itself when it is a file). */
export function sourceFiles(dir: string): string[] {
  if (dir.endsWith(".ts")) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === "testing" || entry.name === "node_modules" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * A route served outside the framework's routing (a WebSocket upgrade): the one source file that holds
 * its path as a string literal. The OpenAPI tables and zod inputs, which describe it, do not count.
 */
function outsideFrameworkFile(path: string, dirs: string[]): string | string[] | undefined {
  const holders = dirs
    .flatMap(sourceFiles)
    .filter((file) => !/\/(openapi|operations|inputs)\.ts$/.test(file))
    .filter((file) => scanFile(file).literals.includes(path));
  return holders.length === 1 ? holders[0] : holders.length === 0 ? undefined : holders;
}

/** `backend/src/permissions/hooks.ts` → `permissions`; a file at the service's root has none. */
function folderArea(file: string, sourceRoot: string): string {
  const parts = relative(join(ROOT, sourceRoot), file).split(sep);
  return parts.length > 1 ? parts[0] : "—";
}

/** What nearly every route file imports: the context, the route wrapper, the sign-in check. */
const PLUMBING = ["infra/context", "infra/http", "sessions"];

/**
 * The web area a route file belongs to: the folders of web/lib it imports. Infrastructure (`infra/*`)
 * counts only when no area is imported, and the plumbing (PLUMBING) only when nothing else is.
 */
function webArea(file: string): string {
  const libRoot = join(WEB_ROOT, "lib");
  if (file.startsWith(libRoot + sep)) return libFolder(relative(libRoot, file));
  const folders = new Set<string>();
  for (const spec of scanFile(file).valueImports) {
    const target = resolveSpecifier(file, spec, WEB_ROOT);
    if (target?.startsWith(libRoot + sep)) folders.add(libFolder(relative(libRoot, target)));
  }
  let areas = [...folders];
  if (areas.some((a) => !a.startsWith("infra/"))) areas = areas.filter((a) => !a.startsWith("infra/"));
  if (areas.some((a) => !PLUMBING.includes(a))) areas = areas.filter((a) => !PLUMBING.includes(a));
  return areas.sort().join(", ") || "—";
}

function libFolder(path: string): string {
  const [first, second] = path.split(sep);
  return first === "infra" ? `infra/${second}` : first;
}

async function webRoutes(): Promise<ServiceRoutes> {
  const document = webOpenApiDocument();
  const problems: string[] = [];
  const served = new Map<string, string>();
  for (const module of await routeModules()) {
    for (const { method } of module.handlers) served.set(`${method} ${module.path}`, module.file);
  }
  const documented = operationsOf(document);
  const keys = new Set(documented.map((op) => `${op.method} ${op.path}`));
  for (const [key, file] of served) {
    if (!keys.has(key))
      problems.push(`${key} (${relative(ROOT, file)}) is served but no operation documents it`);
  }
  const rows = documented.map((op): RouteRow => {
    const key = `${op.method} ${op.path}`;
    let file = served.get(key);
    if (!file) {
      const found = outsideFrameworkFile(op.path, [join(WEB_ROOT, "lib"), join(WEB_ROOT, "server.ts")]);
      if (typeof found === "string") file = found;
      else
        problems.push(
          `${key} is documented but no route file serves it${found ? ` (${found.length} files name its path)` : ""}`,
        );
    }
    return {
      method: op.method,
      path: op.path,
      auth: authOf(op.security),
      file,
      area: file ? webArea(file) : "—",
      backendRoutes: op.backendRoutes,
    };
  });
  return { name: "web", document, rows, problems };
}

/** The rows of an Express service: each documented route with the file that registered it. */
function expressRows(
  name: "backend" | "summarizer",
  document: OpenApiDocument,
  entries: RegisteredEntry[],
): ServiceRoutes {
  const sourceRoot = `${name}/src`;
  const problems: string[] = [];
  const documented = operationsOf(document);
  const keys = new Set(documented.map((op) => `${op.method} ${op.path}`));
  for (const entry of entries) {
    if (entry.kind === "route" && !keys.has(entry.key))
      problems.push(`${entry.key} is served but no operation documents it`);
  }
  const rows = documented.map((op): RouteRow => {
    const key = `${op.method} ${op.path}`;
    const registered = entries.filter((e) => e.kind === "route" && e.key === key);
    // A route under a path mount (the runtime proxy) is served by the mount's middleware: the longest.
    const mounts = entries
      .filter((e) => e.kind === "mount" && op.path.startsWith(`${e.key}/`))
      .sort((a, b) => b.key.length - a.key.length);
    let files = [...new Set((registered.length > 0 ? registered : mounts.slice(0, 1)).map((e) => e.file))];
    if (files.length === 0) {
      const found = outsideFrameworkFile(op.path, [join(ROOT, sourceRoot)]);
      files = typeof found === "string" ? [found] : [];
    }
    const file = files.length === 1 ? files[0] : undefined;
    if (!file) problems.push(`${key} is documented but no one file serves it`);
    return {
      method: op.method,
      path: op.path,
      auth: authOf(op.security),
      file,
      area: file ? folderArea(file, sourceRoot) : "—",
      backendRoutes: [],
    };
  });
  return { name, document, rows, problems };
}

async function backendRoutes(): Promise<ServiceRoutes> {
  const config = loadBackendConfig({
    // Never connected: the app only needs a database handle and a bus to mount its routes.
    DATABASE_URL: "postgres://docs@127.0.0.1:1/docs",
    INTERNAL_API_KEY: "docs-internal-key-0123456789abcdef",
    HMAC_SECRET: "docs-hmac-secret-0123456789abcdef",
    DATA_ENCRYPTION_KEY: "ab".repeat(32),
  });
  const logger = createLogger("docs-routes", "silent");
  const database = connectDatabase(config.DATABASE_URL);
  try {
    const permissionBus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
    const { entries } = expressRouteFiles(ROOT, () => createApp({ config, database, logger, permissionBus }));
    return expressRows("backend", backendOpenApiDocument(), entries);
  } finally {
    await database.close();
  }
}

function summarizerRoutes(): ServiceRoutes {
  const { entries } = expressRouteFiles(ROOT, () => {
    const summarizer = createSummarizerApp({
      config: loadSummarizerConfig({}),
      logger: createLogger("docs-routes", "silent"),
    });
    summarizer.close();
    return summarizer.app;
  });
  return expressRows("summarizer", summarizerOpenApiDocument(), entries);
}

/** The three services' tables, in the order the doc lists them. */
export async function serviceRoutes(): Promise<ServiceRoutes[]> {
  return [await webRoutes(), await backendRoutes(), summarizerRoutes()];
}

const SERVICES: Record<ServiceRoutes["name"], { title: string; where: string }> = {
  web: { title: "Web (Next.js, port 3000)", where: "`GET /api/openapi.json` (rendered at `/docs`)" },
  backend: { title: "Backend (Express, port 4000)", where: "`GET /openapi.json`" },
  summarizer: { title: "Summarizer (Express, port 4100)", where: "`GET /openapi.json`" },
};

export const HEADER = `# Routes

<!-- Generated by \`npm run docs:routes\` (scripts/docs/routes.ts); do not edit. scripts/docs/routes.test.ts
fails when this file is stale. -->

Every route of the three services, one table each, made from the OpenAPI document the service serves
(the same operations its tests hold to the routes it really serves). The columns:

- **Method, Path**: the operation (OpenAPI path template: \`{id}\` is a path parameter).
- **Auth**: the operation's security requirements, alternatives joined by "or": \`session\` (the
  dashboard's cookie), \`API key\` with the scope it needs, \`internal key\` (\`INTERNAL_API_KEY\` as Bearer),
  \`internal key + signed user\` (the web's calls for a user: the key and the signed \`x-user-*\` headers),
  the agent's gateway token, the metrics token, the hosting webhook secret, or \`public\`. On the web the
  route file declares the same (\`route({auth})\`; web/lib/sessions/route-auth.test.ts checks both agree).
- **File**: what serves it. Web: the \`route.ts\` under web/app exporting the method. Backend and
  summarizer: the file whose \`router.get(…)\` / \`app.post(…)\` registered it while the app was built (a
  route under a path mount, the runtime proxy, is the mount's file). A WebSocket upgrade served outside the
  framework: the one source file holding its path.
- **Area**: web: the folders of \`web/lib\` the route file imports, leaving out \`infra/*\` when an area is
  among them and the plumbing every route imports (\`infra/context\`, \`infra/http\`, \`sessions\`) when
  anything else is; backend and summarizer: the folder of the file under \`src/\` (— at its root).
- **Backend routes** (web): the backend routes the web route calls, from its operation's
  \`backendRoutes\` (\`x-backend-routes\` in the document). The test holds them to the code: each names a
  backend operation, each is a path that a module reached from the route file's imports and calling the
  backend spells out, and every backend path the web's backend-calling code spells out is named by some
  operation. What it cannot see is a second route starting to call a backend path another route already
  names: a route whose code starts calling the backend adds \`backendRoutes\` to its operation. The
  dashboard health also probes the summarizer's \`GET /health\`.
`;

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

function fileLink(file: string | undefined): string {
  if (!file) return "—";
  const path = relative(ROOT, file).split(sep).join("/");
  return `[${path}](../${path.replace(/\[/g, "%5B").replace(/\]/g, "%5D")})`;
}

const METHOD_ORDER = METHODS.map((m) => m.toUpperCase());

export function routesMarkdown(services: ServiceRoutes[]): string {
  const sections = services.map((service) => {
    const { title, where } = SERVICES[service.name];
    const web = service.name === "web";
    const rows = [...service.rows].sort(
      (a, b) =>
        a.path.localeCompare(b.path, "en") || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
    );
    const head = web
      ? "| Method | Path | Auth | File | Area | Backend routes |\n|---|---|---|---|---|---|"
      : "| Method | Path | Auth | File | Area |\n|---|---|---|---|---|";
    const lines = rows.map((row) => {
      const cells = [row.method, `\`${row.path}\``, cell(row.auth), fileLink(row.file), row.area];
      if (web) cells.push(row.backendRoutes.map((r) => `\`${r}\``).join("<br>") || "—");
      return `| ${cells.join(" | ")} |`;
    });
    return `## ${title}\n\nDocument: ${where}. ${rows.length} operations.\n\n${head}\n${lines.join("\n")}\n`;
  });
  return `${HEADER}\n${sections.join("\n")}`;
}

async function main(): Promise<void> {
  const services = await serviceRoutes();
  const problems = services.flatMap((s) => s.problems.map((p) => `${s.name}: ${p}`));
  if (problems.length > 0) {
    process.stderr.write(`docs/routes.md not written:\n${problems.map((p) => `- ${p}`).join("\n")}\n`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(ROUTES_DOC, routesMarkdown(services));
  process.stdout.write(`wrote ${relative(ROOT, ROUTES_DOC)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
