/**
 * Which source file registered each route of an Express app: while the app is built, Express's router
 * notes the caller of every `router.get(…)` / `app.post(…)` (the `route()` each of them goes through) and of
 * every path mount (`router.use(path, …)`), read from the call's stack. Nothing is served.
 */
import { type ExpressEntry, expressEntries } from "@svc/common/openapi/express-routes";
import express from "express";

interface RouterPrototype {
  route(this: RouterLike, path: string): unknown;
  use(this: RouterLike, ...args: unknown[]): unknown;
}
interface RouterLike {
  stack: unknown[];
}

/** The first stack frame in this repository's sources other than this file. */
function callerFile(root: string): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? "";
  Error.stackTraceLimit = limit;
  for (const match of stack.matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts):\d+:\d+/g)) {
    const file = match[1];
    if (file.startsWith(root) && !file.includes("/node_modules/") && !file.endsWith("/express-files.ts"))
      return file;
  }
  return undefined;
}

export interface RegisteredEntry extends ExpressEntry {
  /** The file that registered it, absolute. */
  file: string | undefined;
}

/** Builds the app with `build` and answers its routes and mounts with the files that registered them. */
export function expressRouteFiles<App extends { router: unknown }>(
  root: string,
  build: () => App,
): { app: App; entries: RegisteredEntry[] } {
  const proto = express.Router.prototype as unknown as RouterPrototype;
  const { route, use } = proto;
  const files = new WeakMap<object, string | undefined>();
  proto.route = function (this: RouterLike, path: string) {
    const created = route.call(this, path) as object;
    files.set(created, callerFile(root));
    return created;
  };
  proto.use = function (this: RouterLike, ...args: unknown[]) {
    const before = this.stack.length;
    const result = use.apply(this, args);
    const file = callerFile(root);
    for (const layer of this.stack.slice(before)) files.set(layer as object, file);
    return result;
  };
  try {
    const app = build();
    const entries = expressEntries(app).map((entry) => ({
      ...entry,
      file: files.get(entry.kind === "route" ? (entry.layer.route as object) : entry.layer),
    }));
    return { app, entries };
  } finally {
    proto.route = route;
    proto.use = use;
  }
}
