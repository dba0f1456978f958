/**
 * Routes web/server.ts serves ahead of Next.js: the hot paths for programs and agents (the v1 gateway, the
 * payment-session reads), where Next's own routing costs more than the call itself. Each is served by the
 * handler its route file exports — the function Next would call, so validation, payment, metrics, errors and
 * limits stay in one place — and request and answer cross over as Next's route adapter carries them (headers,
 * the body read only as the handler reads it, Next's `Vary`, the declared length of ./content-length.ts, the
 * body written as it comes). Anything else (a method the route does not export, a trailing slash, an unusual
 * segment) goes on to Next as before.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** A route handler as a route file exports it (`route(...)`, lib/infra/http/errors.ts). */
export type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

export interface RouteAheadOfNext {
  /** The route file's path: static segments and `[param]` segments (`/api/wallet/sessions/[id]`). */
  path: string;
  /** The route file's module: its exported method handlers (`POST`, `GET`, …). */
  module: Partial<Record<string, unknown>>;
}

/** A request one of the routes serves: its handler and, on a dynamic route, the path's params. */
export interface MatchedRoute {
  handler: RouteHandler;
  params?: Record<string, string>;
}

/** The `Vary` Next gives every answer of an app route (next/dist/server/base-server.js, setVaryHeader). */
const NEXT_VARY = "rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch";
/** Headers of a handler's answer Next does not pass on (next/dist/server/send-response.js). */
const DROPPED_HEADERS = new Set(["content-length", "content-encoding", "transfer-encoding"]);
/** Headers a handler's answer adds to rather than leaves alone when the server set them already. */
const REPEATABLE_HEADERS = new Set(["set-cookie", "www-authenticate", "proxy-authenticate", "vary"]);
/** A dynamic segment's value served here: ids as the platform makes them; anything else goes to Next. */
const PLAIN_SEGMENT = /^[A-Za-z0-9_-]+$/;
/** The methods a route file may export. */
export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * The matcher of `routes`: the handler and params serving a request (its method and target), or null for
 * anything else. Only the methods a route file exports are served; the query is the handler's to read.
 */
export function routesAheadOfNext(
  routes: RouteAheadOfNext[],
): (method: string | undefined, url: string | undefined) => MatchedRoute | null {
  const byPath = new Map<string, Map<string, RouteHandler>>();
  const dynamic: { prefix: string; param: string; handlers: Map<string, RouteHandler> }[] = [];
  for (const { path, module } of routes) {
    const handlers = new Map<string, RouteHandler>();
    for (const method of HTTP_METHODS) {
      const handler = module[method];
      if (typeof handler === "function") handlers.set(method, handler as RouteHandler);
    }
    const param = /^(.*\/)\[([A-Za-z0-9_]+)\]$/.exec(path);
    if (param) dynamic.push({ prefix: param[1], param: param[2], handlers });
    else if (/[[\]]/.test(path))
      throw new Error(`${path}: only a last [param] segment is served ahead of Next`);
    else byPath.set(path, handlers);
  }
  return (method, url) => {
    if (!method || !url) return null;
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    const handler = byPath.get(path)?.get(method);
    if (handler) return { handler };
    for (const route of dynamic) {
      if (!path.startsWith(route.prefix)) continue;
      const value = path.slice(route.prefix.length);
      const found = route.handlers.get(method);
      if (found && PLAIN_SEGMENT.test(value)) return { handler: found, params: { [route.param]: value } };
    }
    return null;
  };
}

/**
 * Serves a matched request: the handler gets a Request as Next gives it one (`origin` + the request
 * target; the body as a stream read from the connection only when the handler reads it) and its answer is
 * written as Next writes it (see the module's comment). Rejects when the handler does or the answer's body
 * fails; the caller answers or cuts off the connection as it does for Next.
 */
export async function serveAheadOfNext(
  req: IncomingMessage,
  res: ServerResponse,
  route: MatchedRoute,
  origin: string,
): Promise<void> {
  const request = new Request(`${origin}${req.url}`, {
    method: req.method,
    headers: headersOf(req),
    ...(hasBody(req)
      ? { body: new ReadableStream(new UnreadBody(req), { highWaterMark: 0 }), duplex: "half" }
      : {}),
  } as RequestInit);
  // As Next calls a route handler: the params of a dynamic route, none for a static one.
  const context = route.params ? { params: Promise.resolve(route.params) } : {};
  const response = await route.handler(request, context as Parameters<RouteHandler>[1]);
  res.appendHeader("vary", NEXT_VARY);
  res.statusCode = response.status;
  res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (DROPPED_HEADERS.has(name) || name === "set-cookie") continue;
    if (REPEATABLE_HEADERS.has(name) || !res.hasHeader(name)) res.appendHeader(name, value);
  }
  for (const cookie of response.headers.getSetCookie()) res.appendHeader("set-cookie", cookie);
  await writeBody(res, response.body);
}

function headersOf(req: IncomingMessage): [string, string][] {
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.push([name, value]);
    else if (value) for (const each of value) headers.push([name, each]);
  }
  return headers;
}

function hasBody(req: IncomingMessage): boolean {
  if (req.method === "GET" || req.method === "HEAD") return false;
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * The request body as the source of a stream that reads the connection only when pulled: what the handler
 * does not read stays unread (the server's drain, @svc/common's drainUnreadBodies, throws it away after the
 * answer). A class, not closures: nothing is made per pull.
 */
class UnreadBody implements UnderlyingDefaultSource<Uint8Array> {
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private settle: (() => void) | undefined;

  constructor(private readonly req: IncomingMessage) {
    this.step = this.step.bind(this);
    this.fail = this.fail.bind(this);
    this.onClose = this.onClose.bind(this);
  }

  pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    this.controller = controller;
    const { req } = this;
    const pulled = new Promise<void>((resolve) => {
      this.settle = resolve;
    });
    req.on("readable", this.step);
    req.on("end", this.step);
    req.on("error", this.fail);
    req.on("close", this.onClose);
    this.step();
    return pulled;
  }

  cancel(): void {
    this.detach();
  }

  private step(): void {
    const { req, controller } = this;
    if (!controller || !this.settle) return;
    const chunk = req.read() as Buffer | null;
    if (chunk !== null) {
      this.done();
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    } else if (req.readableEnded) {
      this.done();
      controller.close();
    } else if (req.destroyed) {
      this.onClose();
    }
  }

  private fail(err: Error): void {
    const { controller } = this;
    this.done();
    controller?.error(err);
  }

  private onClose(): void {
    if (!this.req.complete) this.fail(new Error("the client closed the connection before the body ended"));
  }

  /** Settles the pull under way; the connection is not read until the next. */
  private done(): void {
    this.detach();
    const settle = this.settle;
    this.settle = undefined;
    settle?.();
  }

  private detach(): void {
    const { req } = this;
    req.off("readable", this.step);
    req.off("end", this.step);
    req.off("error", this.fail);
    req.off("close", this.onClose);
  }
}

/**
 * Writes the answer's body as it comes and ends the answer. Chunks written in one turn of the event loop go
 * out together (the head, a whole body and its end in one write); a stream's chunk leaves at the end of the
 * turn it arrived in. A client that goes away cancels the body (a plugin's stream is given up).
 */
async function writeBody(res: ServerResponse, body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (res.destroyed) {
    await body?.cancel().catch(() => {});
    return;
  }
  if (!body) {
    res.end();
    return;
  }
  const reader = body.getReader();
  let drained: (() => void) | undefined;
  const onClose = () => {
    drained?.();
    if (!res.writableFinished) reader.cancel().catch(() => {});
  };
  res.once("close", onClose);
  let corked = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(uncork, res);
      }
      if (!res.write(value)) {
        // Backpressure: the next chunk waits until the client took this one (or went away).
        await new Promise<void>((resolve) => {
          drained = resolve;
          res.once("drain", resolve);
        });
        res.off("drain", drained as () => void);
        drained = undefined;
      }
    }
    if (!res.destroyed) res.end();
  } catch (err) {
    if (!res.destroyed) res.destroy(err as Error);
    throw err;
  } finally {
    res.off("close", onClose);
  }
}

/** The end of a turn in which a body's chunks were written: they leave (end() has sent them already). */
function uncork(res: ServerResponse): void {
  if (!res.writableEnded) res.uncork();
}
