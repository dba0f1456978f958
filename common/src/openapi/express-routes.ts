/**
 * The routes an Express 5 app really serves, read from its router stack (`app.router.stack`): what the
 * coverage tests compare with the service's OpenAPI document.
 */
import { openApiPath } from "./index";

/** Express 5 (router 2.x) layers as far as this walk needs them. */
export interface RouterLayer {
  rawPath?: string | string[];
  slash?: boolean;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
}

export interface ExpressRoutes {
  /** `GET /api/x/{id}` for every route. */
  routes: string[];
  /** Paths of middleware mounted on a path (guards, body parsers, proxies): they see requests under them. */
  mounts: string[];
}

/** One route (`GET /api/x/{id}`) or path mount (`/api/x`) of the stack, with the layer that serves it. */
export interface ExpressEntry {
  kind: "route" | "mount";
  key: string;
  layer: RouterLayer;
}

export function expressRoutes(app: { router: unknown }): ExpressRoutes {
  const entries = expressEntries(app);
  const keys = (kind: ExpressEntry["kind"]) =>
    [...new Set(entries.filter((e) => e.kind === kind).map((e) => e.key))].sort();
  return { routes: keys("route"), mounts: keys("mount") };
}

/** Every route and path mount of the app, in stack order. */
export function expressEntries(app: { router: unknown }): ExpressEntry[] {
  return walk((app.router as { stack: RouterLayer[] }).stack, "");
}

function walk(stack: RouterLayer[], prefix: string): ExpressEntry[] {
  const entries: ExpressEntry[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        if (method !== "_all")
          entries.push({
            kind: "route",
            key: `${method.toUpperCase()} ${openApiPath(prefix + layer.route.path)}`,
            layer,
          });
      }
    } else if (layer.handle.stack) {
      entries.push(...walk(layer.handle.stack, layer.slash ? prefix : prefix + String(layer.rawPath ?? "")));
    } else if (!layer.slash && layer.rawPath !== undefined) {
      for (const path of [layer.rawPath].flat())
        entries.push({ kind: "mount", key: openApiPath(prefix + path), layer });
    }
  }
  return entries;
}
