/**
 * The one outbound client behind a WHATWG `fetch` signature, for libraries that take a `fetch` option (the
 * MCP client transport): every request keeps the client's deadline, redirect policy, URL guard and error
 * naming, and every answer — a whole body or a stream such as server-sent events — is cut off past
 * `maxResponseBytes`.
 */
import type { OutboundClient } from "./fetch";
import { OutboundError } from "./guard";

export interface OutboundFetchOptions {
  /** The deadline of one exchange; a streamed answer gets it again after each chunk. */
  timeoutMs: number;
  maxResponseBytes: number;
  /** Who a cut-off answer's failure names ("the upstream" unless told). */
  name?: string;
  /**
   * Told when a streamed answer fails part-way (cut off at the cap, broken, timed out), with the request's
   * method: a library reading the stream may take that for a disconnect and wait for more.
   */
  onStreamFailure?: (err: unknown, method: string) => void;
}

export type OutboundFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Statuses whose Response must not have a body. */
const NO_BODY = new Set([101, 204, 205, 304]);

function headerRecord(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

async function bodyOf(body: RequestInit["body"]): Promise<string | Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** A `fetch` over `client`; failures reject with the client's OutboundError. */
export function outboundFetch(client: OutboundClient, options: OutboundFetchOptions): OutboundFetch {
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : input;
    const method = (init.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    // The caller's signal may outlive the exchange (a library's per-connection signal). Until the answer's
    // headers arrive it aborts the request; after that it only drops the answer (destroyed without an error):
    // a signal given to node:http stays on the socket, and aborting it once the socket is back in the
    // keep-alive pool would destroy that socket with an error nobody listens to.
    const local = new AbortController();
    const callerSignal = init.signal ?? undefined;
    const onAbort = () => local.abort(callerSignal?.reason);
    if (callerSignal?.aborted) local.abort(callerSignal.reason);
    else callerSignal?.addEventListener("abort", onAbort, { once: true });
    let unlink = () => callerSignal?.removeEventListener("abort", onAbort);
    let response: Awaited<ReturnType<OutboundClient["open"]>>;
    try {
      response = await client.open({
        method,
        url,
        headers: headerRecord(init.headers ?? (input instanceof Request ? input.headers : undefined)),
        body: await bodyOf(init.body),
        signal: local.signal,
        timeoutMs: options.timeoutMs,
        maxResponseBytes: options.maxResponseBytes,
      });
    } finally {
      unlink();
    }
    const answer = response;
    const onLateAbort = () => answer.discard();
    callerSignal?.addEventListener("abort", onLateAbort, { once: true });
    unlink = () => callerSignal?.removeEventListener("abort", onLateAbort);
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      // The body handed on is already decompressed, and its length may differ.
      if (value === undefined || name === "content-encoding" || name === "content-length") continue;
      headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const init2 = { status: response.status, statusText: response.statusText, headers };
    if (NO_BODY.has(response.status) || method === "HEAD") {
      response.discard();
      unlink();
      return new Response(null, init2);
    }
    if (!/^text\/event-stream\b/i.test(headers.get("content-type") ?? "")) {
      try {
        return new Response(new Uint8Array(await response.readBody()), init2);
      } finally {
        unlink();
      }
    }
    // A stream: read as it arrives (whether or not the consumer still pulls, so a finished answer lets go
    // of the caller's signal at once) and handed on, with a running count against the cap.
    const chunks = response.stream({ idleTimeout: true })[Symbol.asyncIterator]();
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        void (async () => {
          let total = 0;
          try {
            for (;;) {
              const { done, value } = await chunks.next();
              if (done || cancelled) break;
              total += value.length;
              if (total > options.maxResponseBytes) {
                const detail = `answer is larger than the ${options.maxResponseBytes}-byte limit`;
                throw new OutboundError("too_large", `${options.name ?? "the upstream"}'s ${detail}`, {
                  upstream: options.name,
                  detail,
                  maxBytes: options.maxResponseBytes,
                });
              }
              controller.enqueue(new Uint8Array(value));
            }
            unlink();
            if (!cancelled) controller.close();
          } catch (err) {
            unlink();
            await chunks.return?.();
            if (cancelled) return;
            options.onStreamFailure?.(err, method);
            controller.error(err);
          }
        })();
      },
      async cancel() {
        cancelled = true;
        unlink();
        await chunks.return?.();
      },
    });
    return new Response(stream, init2);
  };
}
