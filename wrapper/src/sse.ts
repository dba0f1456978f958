import type { Request, Response } from "express";

export const SSE_PING_MS = 15_000;

export interface SseOptions {
  /** Interval of the `: ping` comment that keeps proxies from closing an idle stream. */
  pingMs?: number;
  /** A client whose socket stays full this long is closed (its messages are dropped meanwhile). */
  stallTimeoutMs?: number;
  /** Called once when the stream ends, whoever ends it. */
  onClose?: () => void;
}

/** One open `text/event-stream` response. */
export interface SseClient {
  /** Writes `data: <json>`; false when the message was dropped (slow or closed client). */
  send(data: unknown): boolean;
  close(): void;
  readonly closed: boolean;
  /** Messages dropped because the client's socket buffer was full. */
  readonly dropped: number;
}

/**
 * Turns `res` into a server-sent event stream. Writes never wait for a slow client: while its socket
 * buffer is full new messages are dropped for that client alone, and after `stallTimeoutMs` without
 * draining it is closed, so memory stays bounded and the runtime and other clients are not held up.
 */
export function openSse(req: Request, res: Response, options: SseOptions = {}): SseClient {
  const pingMs = options.pingMs ?? SSE_PING_MS;
  const stallTimeoutMs = options.stallTimeoutMs ?? 60_000;
  let closed = false;
  let congested = false;
  let dropped = 0;
  let stallTimer: NodeJS.Timeout | undefined;

  // writeHead, not res.set: Express would append "; charset=utf-8" to the content type.
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  req.socket.setNoDelay(true);

  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(pingTimer);
    clearTimeout(stallTimer);
    res.off("drain", onDrain);
    if (!res.writableEnded) res.end();
    options.onClose?.();
  };

  const onDrain = (): void => {
    congested = false;
    clearTimeout(stallTimer);
    stallTimer = undefined;
  };

  const write = (chunk: string): boolean => {
    if (closed || res.writableEnded || res.destroyed) return false;
    if (congested) {
      dropped++;
      return false;
    }
    if (!res.write(chunk)) {
      congested = true;
      stallTimer = setTimeout(() => {
        close();
        res.destroy();
      }, stallTimeoutMs);
      stallTimer.unref();
    }
    return true;
  };

  const pingTimer = setInterval(() => write(": ping\n\n"), pingMs);
  pingTimer.unref();
  res.on("drain", onDrain);
  // `close` fires on the response when the client goes away or the stream ends: forget the client at once.
  res.on("close", close);

  return {
    send: (data: unknown) => write(`data: ${JSON.stringify(data)}\n\n`),
    close,
    get closed() {
      return closed;
    },
    get dropped() {
      return dropped;
    },
  };
}
