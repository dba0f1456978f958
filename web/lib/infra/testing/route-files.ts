/**
 * Tests only: every route file of the Next app (`web/app/**\/route.ts`) with its OpenAPI path, its source and
 * its exported HTTP method handlers, for the tests that hold each route to what the OpenAPI document says.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiPath } from "@svc/common/openapi/index";
import { HTTP_METHODS, type RouteHandler } from "../http/ahead-of-next";

export { HTTP_METHODS, type RouteHandler };

export const APP_DIR = fileURLToPath(new URL("../../../app", import.meta.url));

export interface RouteModule {
  /** `app/api/keys/[id]/route.ts` → `/api/keys/{id}`. */
  path: string;
  file: string;
  source: string;
  handlers: { method: (typeof HTTP_METHODS)[number]; handler: RouteHandler }[];
}

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

/** `app/api/keys/[id]/route.ts` → `/api/keys/[id]`; route groups `(x)` add no segment. */
function urlPathOf(file: string): string {
  const segments = relative(APP_DIR, file).split(sep).slice(0, -1);
  return `/${segments.filter((s) => !/^\(.+\)$/.test(s)).join("/")}`;
}

/**
 * The route files below `app/<under>` (all by default), imported. A catch-all is a fallback (JSON 404/405
 * for unknown paths), not an API route of its own, and is left out.
 */
export async function routeModules(under = ""): Promise<RouteModule[]> {
  const modules: RouteModule[] = [];
  for (const file of routeFiles(join(APP_DIR, under))) {
    const path = urlPathOf(file);
    if (path.includes("[...")) continue;
    const module = (await import(file)) as Record<string, unknown>;
    const handlers = HTTP_METHODS.filter((m) => typeof module[m] === "function").map((method) => ({
      method,
      handler: module[method] as RouteHandler,
    }));
    modules.push({ path: openApiPath(path), file, source: readFileSync(file, "utf8"), handlers });
  }
  return modules;
}
