/**
 * Every route of the web API declares who may call it (route() takes the declaration, see ./require.ts),
 * the OpenAPI document states the same (security requirements, the API key's scope), and the declaration
 * is what the route does: each route an API key reaches refuses a key without its scope (403
 * `insufficient_scope` naming it) and an expired key (401), each session-only route refuses any key.
 * Refusals come before the handler runs, so the requests here change nothing.
 */
import { API_AREAS, type ApiScope } from "@svc/common/api-scopes";
import { apiKeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApiKey } from "../apikeys/service";
import { webOpenApiDocument } from "../infra/openapi/document";
import { webOperations } from "../infra/openapi/operations";
import { makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { type RouteModule, routeModules } from "../infra/testing/route-files";
import { type RouteAuth, requiredScopeOf, routeAuthOf } from "./require";

const { clock } = useWebTestContext();

interface DeclaredRoute {
  key: string;
  method: string;
  path: string;
  auth: RouteAuth | undefined;
  source: string;
  handler: RouteModule["handlers"][number]["handler"];
}

let declared: DeclaredRoute[] | undefined;
/** Every method of every route file under app/api, with its declaration. */
async function apiRoutes(): Promise<DeclaredRoute[]> {
  declared ??= (await routeModules("api")).flatMap(({ path, source, handlers }) =>
    handlers.map(({ method, handler }) => ({
      key: `${method} ${path}`,
      method,
      path,
      auth: routeAuthOf(handler),
      source,
      handler,
    })),
  );
  return declared;
}

/** A request for the route with a bearer key; every `{param}` of the path filled in. */
function call(route: DeclaredRoute, key: string) {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const params = Object.fromEntries(names.map((name) => [name, `x_${name}`]));
  const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => params[name]);
  const request = makeRequest({ method: route.method, path, headers: { authorization: `Bearer ${key}` } });
  return route.handler(request, { params: Promise.resolve(params) });
}

/** The text of the route's own handler in its file: from its `export const METHOD` to the next export. */
function handlerSource(route: DeclaredRoute): string {
  const start = route.source.indexOf(`export const ${route.method} =`);
  const end = route.source.indexOf("\nexport ", start + 1);
  return route.source.slice(start, end === -1 ? undefined : end);
}

type DocumentedOperation = { security?: unknown[]; responses: Record<string, { description: string }> };

/** The route's operation object in the served OpenAPI document. */
function operationOf(route: DeclaredRoute): DocumentedOperation {
  const item = webOpenApiDocument().paths?.[route.path] as Record<string, DocumentedOperation> | undefined;
  const op = item?.[route.method.toLowerCase()];
  if (!op) throw new Error(`${route.key} is not in the OpenAPI document`);
  return op;
}

/** A new key with these scopes, of a user of its own (an account holds at most 10). */
async function keyOf(scopes: ApiScope[], expiresInDays?: number): Promise<string> {
  const { user } = await signedInUser();
  return (await createApiKey(webContext(), user.id, { name: "test", scopes, expiresInDays })).key;
}

/** What a route of the Settings' account side is: account, API keys, passkeys, the email confirmation. */
const ACCOUNT_PATH = /^\/api\/(account|keys|passkeys?|auth)(\/|$)/;

describe("route auth declarations", () => {
  it("every route under app/api declares its auth", async () => {
    const routes = await apiRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const undeclared = routes.filter((r) => r.auth === undefined).map((r) => r.key);
    expect(undeclared).toEqual([]);
  }, 60_000);

  it("the OpenAPI document states each route's declaration: its security and the key's scope", async () => {
    for (const route of await apiRoutes()) {
      const op = webOperations.find((o) => `${o.method.toUpperCase()} ${o.path}` === route.key);
      expect(op, route.key).toBeDefined();
      if (!op || !route.auth) continue;
      const documented = operationOf(route);
      const security = documented.security;
      if (route.auth === "public") {
        expect(op.auth, route.key).not.toContain("apiKey");
        expect(op.auth, route.key).not.toEqual(["session"]);
        // A public route reads no required caller: it would be a session route declared wrongly.
        expect(handlerSource(route), route.key).not.toMatch(
          /\brequire(SessionUser|VerifiedUser|Caller|Session)\(/,
        );
      } else if (route.auth === "session") {
        expect(op.auth, route.key).toEqual(["session"]);
        expect(security, route.key).toEqual([{ session: [] }]);
      } else {
        const scope = requiredScopeOf(route.auth);
        expect(op.scope, route.key).toBe(scope);
        expect(op.auth, route.key).toEqual(
          route.auth.optional ? ["none", "session", "apiKey"] : ["session", "apiKey"],
        );
        expect(security, route.key).toContainEqual({ apiKey: [scope] });
        expect(security, route.key).toContainEqual({ session: [] });
        const responses = documented.responses;
        expect(responses["403"]?.description, route.key).toContain("insufficient_scope");
        expect(responses["401"]?.description, route.key).toContain("api_key_expired");
      }
    }
  }, 60_000);

  it("only account, API key, passkey and email-confirmation routes are session-only, and they never take a key", async () => {
    const routes = await apiRoutes();
    const sessionOnly = routes.filter((r) => r.auth === "session").map((r) => r.key);
    expect(sessionOnly.length).toBeGreaterThan(5);
    for (const key of sessionOnly) expect(key.split(" ")[1], key).toMatch(ACCOUNT_PATH);
    for (const route of routes) {
      if (ACCOUNT_PATH.test(route.path)) expect(typeof route.auth, route.key).toBe("string");
    }
    // Every other route a signed-in user reaches, a key reaches too.
    const scoped = routes.filter((r) => typeof r.auth === "object");
    expect(scoped.length).toBeGreaterThan(60);
  }, 60_000);

  it("a key without the route's scope is 403 insufficient_scope naming it; a session-only route refuses even an `all` key", async () => {
    const routes = await apiRoutes();
    // For each area, a key holding every other area's write scope (so nothing of this area).
    const keysWithout = new Map<string, string>();
    for (const area of API_AREAS) {
      const scopes = API_AREAS.filter((a) => a !== area).map((a) => `${a}:write` as ApiScope);
      keysWithout.set(area, await keyOf(scopes));
    }
    const readOnly = await keyOf(API_AREAS.map((a) => `${a}:read` as ApiScope));
    const all = await keyOf(["all"]);
    let checked = 0;
    for (const route of routes) {
      const auth = route.auth;
      if (auth === undefined || auth === "public") continue;
      if (auth === "session") {
        const res = await call(route, all);
        expect(res.status, route.key).toBe(403);
        expect((await res.json()).code, route.key).toBe("api_key_not_allowed");
        checked++;
        continue;
      }
      const scope = requiredScopeOf(auth);
      const res = await call(route, keysWithout.get(auth.area) as string);
      expect(res.status, route.key).toBe(403);
      const body = await res.json();
      // The runtime routes answer in the backend's shape, `{error: code, message}`.
      expect(body.code ?? body.error, route.key).toBe("insufficient_scope");
      expect(body.scope, route.key).toBe(scope);
      expect(res.headers.get("www-authenticate"), route.key).toBe(
        `Bearer error="insufficient_scope", scope="${scope}"`,
      );
      if (auth.access === "write") {
        const read = await call(route, readOnly);
        expect(read.status, route.key).toBe(403);
        expect((await read.json()).scope, route.key).toBe(scope);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(70);
  }, 120_000);

  it("an expired key is 401 api_key_expired on every route a key reaches; a deleted one is 401 unauthorized", async () => {
    const { user } = await signedInUser();
    const expired = await createApiKey(webContext(), user.id, {
      name: "old",
      scopes: ["all"],
      expiresInDays: 1,
    });
    const deleted = await createApiKey(webContext(), user.id, { name: "gone", scopes: ["all"] });
    clock.advance(24 * 60 * 60 * 1000);
    await webContext().db.update(apiKeys).set({ revokedAt: clock.now() }).where(eq(apiKeys.id, deleted.id));
    for (const route of await apiRoutes()) {
      if (typeof route.auth !== "object") continue;
      const res = await call(route, expired.key);
      expect(res.status, route.key).toBe(401);
      const body = await res.json();
      expect(body.code ?? body.error, route.key).toBe("api_key_expired");
      const gone = await call(route, deleted.key);
      expect(gone.status, route.key).toBe(401);
      const goneBody = await gone.json();
      expect(goneBody.code ?? goneBody.error, route.key).toBe("unauthorized");
    }
  }, 120_000);
});
