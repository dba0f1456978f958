import { Validator } from "@seriousme/openapi-schema-validator";
import { documentedRoutes } from "@svc/common/openapi/index";
import { describe, expect, it } from "vitest";
import { GET as OPENAPI } from "@/app/api/openapi.json/route";
import { GET as ASSET } from "@/app/docs/assets/[file]/route";
import { GET as DOCS } from "@/app/docs/route";
import { MAX_BODY_BYTES, MAX_PUBLIC_BODY_BYTES } from "../http/body";
import { call, makeRequest, useWebTestContext } from "../testing";
import { routeModules } from "../testing/route-files";
import { webOpenApiDocument } from "./document";
import { webOperations } from "./operations";
import { BODY_LIMITS, bodyLimit, CROSS_SITE_ROUTES, operationKey, refusesCrossSite } from "./shared";

useWebTestContext();

/** Every `METHOD /path` the Next app serves: each route file's exported HTTP method functions. */
async function servedRoutes(): Promise<string[]> {
  const modules = await routeModules();
  return modules.flatMap(({ path, handlers }) => handlers.map(({ method }) => `${method} ${path}`)).sort();
}

/** The `maxBytes` a route file passes to the body reader (`MAX_PUBLIC_BODY_BYTES`, `160 * 1024`, ...). */
function limitsIn(source: string): number[] {
  return [...source.matchAll(/maxBytes:\s*([^,})]+)/g)].map(([, expression]) => {
    const text = expression.trim();
    if (text === "MAX_PUBLIC_BODY_BYTES") return MAX_PUBLIC_BODY_BYTES;
    if (text === "MAX_BODY_BYTES") return MAX_BODY_BYTES;
    const kb = /^(\d+)\s*\*\s*1024$/.exec(text);
    if (kb) return Number(kb[1]) * 1024;
    throw new Error(`a body limit the test cannot read: ${text}`);
  });
}

function responsesOf(method: string, path: string): Record<string, unknown> {
  const item = webOpenApiDocument().paths?.[path] as Record<string, { responses: Record<string, unknown> }>;
  return item[method.toLowerCase()].responses;
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

  it("lists 413 on every operation with a request body, at the limit its route passes to the body reader", async () => {
    const withBody = webOperations.filter((op) => op.body);
    expect(withBody.length).toBeGreaterThan(30);
    for (const op of withBody) {
      expect(Object.keys(responsesOf(op.method, op.path)), operationKey(op)).toContain("413");
    }
    // The operations with a body are the ones whose route reads one; a limit of its own is the one listed.
    for (const { path, source } of await routeModules()) {
      if (!/\bread(?:Json|Text|Body)\(/.test(source)) continue;
      const documented = withBody.filter((op) => op.path === path);
      expect(documented.length, `${path} reads a body its operations do not describe`).toBeGreaterThan(0);
      const limits = [...new Set(limitsIn(source))];
      expect(limits.length, path).toBeLessThanOrEqual(1);
      for (const op of documented) expect(bodyLimit(op), operationKey(op)).toBe(limits[0] ?? MAX_BODY_BYTES);
    }
    for (const key of Object.keys(BODY_LIMITS)) {
      expect(withBody.map(operationKey), "BODY_LIMITS names an operation with a body").toContain(key);
    }
    expect(responsesOf("post", "/api/gateway/chat")["413"]).toMatchObject({
      description: expect.stringContaining("160 KB"),
    });
  }, 60_000);

  it("lists 403 on every state-changing operation whose route refuses another site's request", async () => {
    const refused: string[] = [];
    const allowed: string[] = [];
    for (const { path, source, handlers } of await routeModules()) {
      for (const { method, handler } of handlers) {
        if (!["POST", "PUT", "PATCH", "DELETE"].includes(method)) continue;
        // Over every body limit: a route that lets the request through refuses it unread (413), or earlier.
        const request = makeRequest({
          method,
          path,
          body: "x".repeat(MAX_BODY_BYTES + 1),
          headers: {
            origin: "https://evil.example",
            "sec-fetch-site": "cross-site",
            "content-type": "application/json",
          },
        });
        const res = await handler(request, { params: Promise.resolve({}) });
        const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
        const crossSite = res.status === 403 && (body.code ?? body.error) === "cross_site_request";
        (crossSite ? refused : allowed).push(`${method} ${path}`);
        expect(/allowCrossSite:\s*true/.test(source), `${method} ${path}`).toBe(!crossSite);
      }
    }
    expect(refused.length).toBeGreaterThan(40);
    expect(allowed.sort()).toEqual([...CROSS_SITE_ROUTES].sort());
    for (const op of webOperations) {
      const key = operationKey(op);
      expect(refusesCrossSite(op), key).toBe(refused.includes(key));
      if (refusesCrossSite(op)) expect(Object.keys(responsesOf(op.method, op.path)), key).toContain("403");
    }
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
    const res = DOCS(new Request("http://localhost:3000/docs"));
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
