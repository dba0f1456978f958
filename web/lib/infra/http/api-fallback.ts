/**
 * What Next.js does not answer in the web API's shape: a path under `/api/` that no route serves (Next
 * renders its HTML 404 page) and a method a route does not export (Next answers an empty 405 without
 * `Allow`). web/server.ts puts this in front of Next's handler.
 */
import { readFileSync } from "node:fs";
import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The route paths of the built app (`/api/keys/[id]`, ...), from Next's app-path-routes manifest. */
export function builtApiRoutes(webDir: string, distDir = ".next"): string[] {
  const manifest = JSON.parse(readFileSync(join(webDir, distDir, "app-path-routes-manifest.json"), "utf8"));
  return Object.values(manifest as Record<string, string>).filter(
    (path) => path === "/api" || path.startsWith("/api/"),
  );
}

/** Rank of a route segment as Next.js prefers it: static, then `[x]`, then `[...x]`, then `[[...x]]`. */
function segmentRank(segment: string): number {
  if (/^\[\[\.\.\..+\]\]$/.test(segment)) return 3;
  if (/^\[\.\.\..+\]$/.test(segment)) return 2;
  if (/^\[.+\]$/.test(segment)) return 1;
  return 0;
}

function segmentSource(segment: string): string {
  switch (segmentRank(segment)) {
    case 3:
      return "(?:/.*)?";
    case 2:
      return "/.+";
    case 1:
      return "/[^/]+";
    default:
      return segment === "" ? "" : `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
  }
}

/**
 * The route serving a path, as Next.js picks it (the most specific pattern that matches), or null:
 * `[x]` is one segment, `[...x]` one or more, `[[...x]]` zero or more.
 */
export function apiRouteMatcher(routes: string[]): (path: string) => string | null {
  const ranked = routes
    .map((route) => {
      const segments = route.split("/").filter(Boolean);
      return {
        route,
        ranks: segments.map(segmentRank),
        pattern: new RegExp(`^${segments.map(segmentSource).join("")}/?$`),
      };
    })
    .sort((a, b) => {
      for (let i = 0; i < Math.min(a.ranks.length, b.ranks.length); i++) {
        if (a.ranks[i] !== b.ranks[i]) return a.ranks[i] - b.ranks[i];
      }
      return b.ranks.length - a.ranks.length;
    });
  return (path) => ranked.find((entry) => entry.pattern.test(path))?.route ?? null;
}

export interface ApiFallbackOptions {
  /** The route serving this path, or null (apiRouteMatcher). */
  routeOf: (path: string) => string | null;
  /** The `Allow` header of the route at this URL: Next's own OPTIONS answer (allowOfRoute). */
  allowOf: (url: string) => Promise<string | null>;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** The URL's path decoded; null when it is not valid percent-encoding. */
function pathOf(url: string): string | null {
  try {
    return decodeURI(rawPathOf(url));
  } catch {
    return null;
  }
}

function rawPathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/");

/**
 * Wraps Next's handler. Under `/api/`, a path that is not valid percent-encoding answers JSON 400, a path no
 * route serves answers JSON 404 `{error: "not_found", code}`, and a method its route does not export answers JSON 405 with `Allow`, both without reaching Next. A
 * route's methods are asked once (Next answers OPTIONS with `Allow` itself) and remembered.
 */
export function withApiFallback(handle: Handler, options: ApiFallbackOptions): Handler {
  const allowed = new Map<string, Promise<string | null>>();
  return async (req, res) => {
    const url = req.url ?? "/";
    const path = pathOf(url);
    if (path === null && isApiPath(rawPathOf(url))) {
      // Next would render its HTML error page for it.
      sendJson(res, 400, { error: "the path is not valid percent-encoding", code: "invalid_request" });
      return;
    }
    if (path === null || !isApiPath(path)) return handle(req, res);
    const route = options.routeOf(path);
    if (route === null) {
      sendJson(res, 404, { error: "not_found", code: "not_found" });
      return;
    }
    const method = (req.method ?? "GET").toUpperCase();
    if (method !== "OPTIONS") {
      let allow = allowed.get(route);
      if (!allow) {
        allow = options.allowOf(url).catch(() => null);
        allowed.set(route, allow);
        // An answer that did not come is asked again next time.
        void allow.then((methods) => methods === null && allowed.delete(route));
      }
      const methods = await allow;
      if (methods !== null && !methods.split(/,\s*/).includes(method)) {
        sendJson(res, 405, { error: "method not allowed", code: "method_not_allowed" }, { allow: methods });
        return;
      }
    }
    return handle(req, res);
  };
}

/** Asks the server itself (`base`, its loopback URL) for a route's `Allow`: Next answers OPTIONS with it. */
export function allowOfRoute(base: () => URL): (url: string) => Promise<string | null> {
  return (url) =>
    new Promise((resolve) => {
      const target = new URL(url, base());
      const req = httpRequest(target, { method: "OPTIONS", timeout: 5_000 }, (res) => {
        res.resume();
        const allow = res.headers.allow;
        resolve(res.statusCode === 204 && typeof allow === "string" ? allow : null);
      });
      req.on("timeout", () => req.destroy());
      req.on("error", () => resolve(null));
      req.end();
    });
}
