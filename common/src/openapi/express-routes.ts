/**
 * The routes an Express 5 app really serves, read from its router stack (`app.router.stack`): what the
 * coverage tests compare with the service's OpenAPI document.
 */
import { openApiPath } from "./index";

/** Express 5 (router 2.x) layers as far as this walk needs them. */
interface RouterLayer {
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

export function expressRoutes(app: { router: unknown }): ExpressRoutes {
  return walk((app.router as { stack: RouterLayer[] }).stack, "");
}

function walk(stack: RouterLayer[], prefix: string): ExpressRoutes {
  const routes: string[] = [];
  const mounts: string[] = [];
  for (const layer of stack) {
    if (layer.route) {
      for (const method of Object.keys(layer.route.methods)) {
        if (method !== "_all")
          routes.push(`${method.toUpperCase()} ${openApiPath(prefix + layer.route.path)}`);
      }
    } else if (layer.handle.stack) {
      const nested = walk(layer.handle.stack, layer.slash ? prefix : prefix + String(layer.rawPath ?? ""));
      routes.push(...nested.routes);
      mounts.push(...nested.mounts);
    } else if (!layer.slash && layer.rawPath !== undefined) {
      for (const path of [layer.rawPath].flat()) mounts.push(openApiPath(prefix + path));
    }
  }
  return { routes: [...new Set(routes)].sort(), mounts: [...new Set(mounts)].sort() };
}
