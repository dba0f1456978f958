import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { documentedRoutes, openApiPath } from "@svc/common/openapi/index";
import { describe, expect, it } from "vitest";
import { GET as OPENAPI } from "@/app/api/openapi.json/route";
import { GET as ASSET } from "@/app/docs/assets/[file]/route";
import { GET as DOCS } from "@/app/docs/route";
import { call, makeRequest, useWebTestContext } from "../testing";
import { webOpenApiDocument } from "./document";

useWebTestContext();

const appDir = fileURLToPath(new URL("../../app", import.meta.url));
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

/** `app/api/keys/[id]/route.ts` → `/api/keys/{id}`; route groups `(x)` add no segment. */
function urlPathOf(file: string): string {
  const segments = relative(appDir, file).split(sep).slice(0, -1);
  return `/${segments.filter((s) => !/^\(.+\)$/.test(s)).join("/")}`;
}

/** Every `METHOD /path` the Next app serves: each route file's exported HTTP method functions. */
async function servedRoutes(): Promise<string[]> {
  const routes: string[] = [];
  for (const file of routeFiles(appDir)) {
    const path = urlPathOf(file);
    // A catch-all is a fallback (JSON 404/405 for unknown paths), not an API route of its own.
    if (path.includes("[...")) continue;
    const module = (await import(file)) as Record<string, unknown>;
    for (const method of METHODS) {
      if (typeof module[method] === "function") routes.push(`${method} ${openApiPath(path)}`);
    }
  }
  return routes.sort();
}

/** Served by web/server.ts, not by a route file: the permission WebSocket relay. */
const outsideNext = ["GET /ws/permissions"];

describe("web OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(webOpenApiDocument() as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes exactly the routes of app/**/route.ts, plus the WebSocket relay", async () => {
    const served = await servedRoutes();
    expect(served).toContain("GET /api/keys/{id}");
    expect(served).toContain("DELETE /api/passkeys/{id}");
    expect(documentedRoutes(webOpenApiDocument())).toEqual([...served, ...outsideNext].sort());
  }, 60_000);

  it("is served at GET /api/openapi.json, with the schemas the routes validate with", async () => {
    const res = await call(OPENAPI, { path: "/api/openapi.json" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    const register = doc.paths["/api/register"].post;
    expect(register.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      properties: { email: { type: "string", maxLength: 254 }, password: { type: "string", minLength: 8 } },
      required: ["email", "password"],
    });
    expect(register.security).toEqual([]);
    expect(doc.paths["/api/keys"].get.security).toEqual([{ session: [] }]);
    expect(doc.components.securitySchemes.session).toEqual(
      expect.objectContaining({ type: "apiKey", in: "cookie", name: "svc-session" }),
    );
    expect(doc.paths["/api/keys"].post.responses["400"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/WebError",
    });
    expect(doc.components.schemas.WebError).toMatchObject({ required: ["error", "code"] });
  });
});

describe("/docs", () => {
  it("answers HTML whose scripts and styles all come from this app, and each of them is served", async () => {
    const res = DOCS();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls).toEqual([
      "/docs/assets/swagger-ui.css",
      "/docs/assets/favicon-32x32.png",
      "/docs/assets/swagger-ui-bundle.js",
      "/docs/assets/swagger-ui-standalone-preset.js",
      "/docs/assets/init.js",
    ]);
    for (const url of urls) {
      const file = url.slice("/docs/assets/".length);
      const asset = await ASSET(makeRequest({ path: url }), { params: Promise.resolve({ file }) });
      expect(asset.status, url).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
    }
    const init = await ASSET(makeRequest({ path: "/docs/assets/init.js" }), {
      params: Promise.resolve({ file: "init.js" }),
    });
    expect(await init.text()).toContain('url: "/api/openapi.json"');
    const bundle = await ASSET(makeRequest({ path: "/docs/assets/swagger-ui-bundle.js" }), {
      params: Promise.resolve({ file: "swagger-ui-bundle.js" }),
    });
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await bundle.text()).toContain("SwaggerUIBundle");
  });

  it("serves no other file of the package or of the disk (404 in the web's error shape)", async () => {
    for (const file of ["package.json", "index.html", "../../package.json", "..%2Fpackage.json"]) {
      const res = await ASSET(makeRequest({ path: "/docs/assets/x" }), { params: Promise.resolve({ file }) });
      expect(res.status, file).toBe(404);
      expect(await res.json()).toEqual({ error: "no such file", code: "not_found" });
    }
  });
});
