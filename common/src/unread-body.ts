/**
 * The rest of a request body the server will not read (a 413, or any answer sent before the body ended), read
 * and thrown away for a bounded time and number of bytes, so the client finishes sending and reads the
 * answer, as nginx's lingering close and Go's post-handler drain do. Without it the connection is either never
 * read again (the client blocks until a timeout resets it) or closed with bytes still arriving, and the
 * kernel's reset destroys the answer before the client reads it: `EPIPE`/`ECONNRESET` instead of a 413. Past
 * `maxBytes` or `maxMs` the body is ended for the application and the connection closed shortly after the
 * answer. Wraps the request listener of web/server.ts and the backend's and summarizer's server.ts.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface UnreadBodyLimits {
  /** Bytes of an unread body thrown away at most before the connection is closed. */
  maxBytes: number;
  /** How long the rest of an unread body may take to arrive before the connection is closed. */
  maxMs: number;
  /** After the answer, how long a connection being closed still reads (so the client reads the answer). */
  lingerMs: number;
}

export const UNREAD_BODY_LIMITS: UnreadBodyLimits = {
  maxBytes: 16 * 1024 * 1024,
  maxMs: 10_000,
  lingerMs: 2_000,
};

/** Wraps a server's request listener: see the module's comment. */
export function drainUnreadBodies(
  listener: RequestListener,
  limits: UnreadBodyLimits = UNREAD_BODY_LIMITS,
): RequestListener {
  return (req, res) => {
    if (hasBody(req)) watchBody(req, res, limits);
    listener(req, res);
  };
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** The request whose unread body holds its connection open, per connection (see `holdClose`). */
const drainingRequest = Symbol("svc.drainingRequest");
type DrainedSocket = Socket & { [drainingRequest]?: { holdsClose(): boolean } };

function watchBody(req: IncomingMessage, res: ServerResponse, limits: UnreadBodyLimits): void {
  const socket = req.socket as DrainedSocket;
  const push = req.push;
  let discarding = false;
  let discarded = 0;
  let endedForApplication = false;
  /** The connection closes once the body has ended (Node asked to close it: `Connection: close`). */
  let closeWhenDrained = false;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;

  const endForApplication = () => {
    if (endedForApplication || req.destroyed) return;
    endedForApplication = true;
    push.call(req, null);
  };
  const closeAfterAnswer = () => {
    socket.end();
    setTimeout(() => socket.destroy(), limits.lingerMs).unref();
  };
  // Past the limits: the application gets the end of the body (a parser waiting for it answers), and the
  // connection is closed once the answer is out.
  const overLimits = () => {
    if (closing) return;
    closing = true;
    endForApplication();
    if (res.writableFinished) closeAfterAnswer();
    else res.once("finish", closeAfterAnswer);
  };
  const drained = () => {
    clearTimeout(timer);
    socket.off("close", onClose);
    if (socket[drainingRequest] === state) socket[drainingRequest] = undefined;
    endForApplication();
    if (closeWhenDrained && !closing) socket.destroy();
  };
  const onClose = () => clearTimeout(timer);
  const state = {
    /** Node is closing the connection: whether this body holds it open until it has ended. */
    holdsClose(): boolean {
      if (!discarding || req.complete) return false;
      // Past the limits the connection is closed after a linger (`closeAfterAnswer`), else once drained.
      if (!closing) closeWhenDrained = true;
      return true;
    },
  };
  const discard = () => {
    if (discarding) return;
    discarding = true;
    socket[drainingRequest] = state;
    holdClose(socket);
    timer = setTimeout(overLimits, limits.maxMs).unref();
    socket.once("close", onClose);
    keepConnectionOnDestroy(req);
    // Nothing reads the request any more: without this Node would throw the rest away itself, unbounded.
    req.resume();
    // The request's parser paused the connection while the application did not read.
    socket.resume();
  };

  // Every body chunk the connection's parser hands to the request passes here.
  req.push = function (this: IncomingMessage, chunk: unknown, encoding?: BufferEncoding): boolean {
    if (!discarding) {
      const unread = chunk !== null && req.readableFlowing === true && req.listenerCount("data") === 0;
      if (!unread) return push.call(this, chunk, encoding);
      discard();
    }
    if (chunk === null) {
      drained();
      return false;
    }
    discarded += (chunk as Buffer).length;
    if (discarded > limits.maxBytes) overLimits();
    return true;
  };
  res.prependOnceListener("finish", () => {
    if (!req.complete) discard();
  });
}

/**
 * Destroying a request whose body has not fully arrived closes its connection (Node's IncomingMessage),
 * and a request ended early for the application is destroyed as it ends. Once the body is being thrown
 * away the connection is the drain's to close: the request is destroyed without it, as Node's own stream
 * utilities destroy a server request (they detach its socket first).
 */
function keepConnectionOnDestroy(req: IncomingMessage): void {
  const destroy = req.destroy;
  req.destroy = function (this: IncomingMessage, err?: Error) {
    const socket = this.socket;
    (this as { socket: Socket | null }).socket = null;
    try {
      return destroy.call(this, err);
    } finally {
      this.socket = socket;
    }
  };
}

const originalDestroySoon = Symbol("svc.destroySoon");

/**
 * An answer saying `Connection: close` makes Node close the connection as soon as the answer is out, bytes
 * still arriving (the reset that loses the answer). While a request's body is being thrown away, the
 * connection is only half-closed then, and closed once that body has ended or past the limits.
 */
function holdClose(socket: DrainedSocket & { [originalDestroySoon]?: () => void }): void {
  if (socket[originalDestroySoon]) return;
  const destroySoon = socket.destroySoon;
  socket[originalDestroySoon] = destroySoon;
  socket.destroySoon = function (this: DrainedSocket) {
    if (socket[drainingRequest]?.holdsClose()) socket.end();
    else destroySoon.call(socket);
  };
}
