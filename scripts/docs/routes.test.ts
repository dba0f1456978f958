/**
 * docs/routes.md is what `npm run docs:routes` makes from the served OpenAPI documents and the code
 * serving them; every route has its operation and its file; each web route's backend routes are the code's.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { documentedRoutes } from "@svc/common/openapi/index";
import { beforeAll, describe, expect, it } from "vitest";
import { importClosure, pathPattern, scanFile, scanSource } from "./code-scan";
import {
  authOf,
  ROOT,
  ROUTES_DOC,
  routesMarkdown,
  type ServiceRoutes,
  serviceRoutes,
  sourceFiles,
  WEB_ROOT,
} from "./routes";

let services: ServiceRoutes[];
beforeAll(async () => {
  services = await serviceRoutes();
}, 120_000);

const service = (name: ServiceRoutes["name"]) => services.find((s) => s.name === name) as ServiceRoutes;

/** A module that calls the backend: the web's backend client, or the backend's address itself. */
function callsBackend(file: string): boolean {
  return /\b(?:callBackend|requestBackend)\(|\bBACKEND_URL\b|\bbackendUrl\b/.test(scanFile(file).code);
}

/** The paths a module spells out, each as the pattern of the paths it can be. */
function pathsIn(file: string): { literal: string; pattern: RegExp }[] {
  return scanFile(file).literals.flatMap((literal) => {
    const pattern = pathPattern(literal);
    return pattern ? [{ literal: literal.replace(/\0/g, "{…}"), pattern }] : [];
  });
}

const pathOf = (route: string) => route.split(" ")[1];

describe("docs/routes.md", () => {
  it("has an operation for every route and a file for every operation, in each service", () => {
    expect(services.map((s) => [s.name, s.problems])).toEqual([
      ["web", []],
      ["backend", []],
      ["summarizer", []],
    ]);
    expect(service("web").rows.length).toBeGreaterThan(100);
    expect(service("backend").rows.length).toBeGreaterThan(30);
    const web = new Map(service("web").rows.map((r) => [`${r.method} ${r.path}`, r]));
    expect(relative(ROOT, web.get("GET /api/keys/{id}")?.file ?? "")).toBe("web/app/api/keys/[id]/route.ts");
    expect(web.get("GET /api/jobs/board")?.area).toBe("board");
    const backend = new Map(service("backend").rows.map((r) => [`${r.method} ${r.path}`, r]));
    expect(relative(ROOT, backend.get("POST /api/hooks/classify")?.file ?? "")).toBe(
      "backend/src/permissions/hooks.ts",
    );
    expect(relative(ROOT, backend.get("PATCH /api/runtime/proxy/{agentId}/{path}")?.file ?? "")).toBe(
      "backend/src/runtime/proxy.ts",
    );
  });

  it("is what `npm run docs:routes` writes now", () => {
    const written = readFileSync(ROUTES_DOC, "utf8");
    expect(written === routesMarkdown(services), "docs/routes.md is stale: run npm run docs:routes").toBe(
      true,
    );
  });

  it("names as a web route's backend routes operations of the backend's document", () => {
    const backend = documentedRoutes(service("backend").document);
    const named = service("web").rows.flatMap((r) => r.backendRoutes);
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((r) => !backend.includes(r))).toEqual([]);
  });

  it("names only backend routes the code reached from the route's file spells out", () => {
    const unreached: string[] = [];
    for (const row of service("web").rows) {
      if (row.backendRoutes.length === 0 || !row.file) continue;
      const callers = [...importClosure(row.file, WEB_ROOT)].filter(callsBackend);
      const patterns = callers.flatMap(pathsIn).map((p) => p.pattern);
      for (const route of row.backendRoutes) {
        if (!patterns.some((p) => p.test(pathOf(route))))
          unreached.push(`${row.method} ${row.path} → ${route}`);
      }
    }
    expect(unreached).toEqual([]);
  });

  it("names every backend route the web's backend-calling code spells out on some web route", () => {
    const backend = documentedRoutes(service("backend").document).map(pathOf);
    const named = new Set(service("web").rows.flatMap((r) => r.backendRoutes.map(pathOf)));
    const callers = [...sourceFiles(join(WEB_ROOT, "lib")), join(WEB_ROOT, "server.ts")].filter(callsBackend);
    expect(callers.length).toBeGreaterThan(5);
    const unnamed: string[] = [];
    for (const file of callers) {
      for (const { literal, pattern } of pathsIn(file)) {
        const matches = backend.filter((path) => pattern.test(path));
        if (matches.length > 0 && !matches.some((path) => named.has(path)))
          unnamed.push(`${relative(ROOT, file)}: ${literal}`);
      }
    }
    expect(unnamed).toEqual([]);
  });
});

describe("auth in words", () => {
  it("joins the alternatives with `or`, one requirement's schemes with `+`", () => {
    expect(authOf([])).toBe("public");
    expect(authOf([{}, { session: [] }, { apiKey: ["files:read"] }])).toBe(
      "public or session or API key `files:read`",
    );
    expect(authOf([{ internalKey: [], userId: [], userEmail: [], userRole: [], userSignature: [] }])).toBe(
      "internal key + signed user",
    );
  });
});

describe("source scan", () => {
  it("reads strings, templates and value imports, not comments or regular expressions", () => {
    const scanned = scanSource(readFileSync(join(import.meta.dirname, "testing/scan-sample.txt"), "utf8"));
    expect(scanned.literals).toEqual([
      "./types",
      "./values",
      "./only-types",
      "\0",
      "/api/agents/\0/\0",
      "/api/permissions",
      "@/lib/lazy",
    ]);
    expect(scanned.valueImports).toEqual(["./values", "@/lib/lazy"]);
    expect(scanned.code).not.toContain("commented");
  });

  it("makes each expression of a template stand for (part of) one path segment, and drops a leading base URL", () => {
    const agent = pathPattern("/api/agents/\0/\0\0") as RegExp;
    expect(agent.test("/api/agents/{agentId}/start")).toBe(true);
    expect(agent.test("/api/agents/{agentId}")).toBe(false);
    expect(pathPattern("\0/health")?.test("/health")).toBe(true);
    expect(pathPattern("/api/permissions\0")?.test("/api/permissions")).toBe(true);
    expect(pathPattern("not a path")).toBeUndefined();
    expect(pathPattern("\0")).toBeUndefined();
  });
});
