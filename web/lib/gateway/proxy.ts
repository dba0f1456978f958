/**
 * Calls a plugin's upstream (one outbound client; the upstream's address comes from configuration) and turns
 * its answer into ours: status, body and Content-Type as the upstream gave them, server-sent events passed on
 * chunk by chunk as they arrive when the caller asked for a stream and the plugin streams. 30 s to answer; a
 * stream may run longer as long as no gap between two chunks exceeds it. Each outcome says whether the plugin
 * may have done the work, which decides refunds (service.ts).
 */
import { createOutboundClient, type HttpError, OutboundError, type OutboundResponse } from "@svc/common";
import { upstreamTimeout, upstreamUnreachable } from "./errors";
import type { Plugin, PluginUpstream } from "./plugins";

/** The upstream timeout (`GATEWAY_UPSTREAM_TIMEOUT_MS` changes it). */
export const UPSTREAM_TIMEOUT_MS = 30_000;
/** Largest non-streamed answer passed on. */
export const MAX_PLUGIN_ANSWER_BYTES = 10 * 1024 * 1024;

const client = createOutboundClient({ name: "the plugin", timeoutMs: UPSTREAM_TIMEOUT_MS });

export interface PluginCall {
  plugin: Plugin & { upstream: PluginUpstream };
  /** The request body without `plugin`. */
  body: Record<string, unknown>;
  /** The caller sent `Accept: text/event-stream`. */
  wantsStream: boolean;
  requestId?: string;
  /** Default UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface PluginAnswer {
  status: number;
  contentType: string | null;
  /**
   * The plugin answered that it did no work: a 5xx other than 504 (a 504 says its own upstream, e.g. the AI
   * provider, had the request and timed out). The caller's payment is given back where it can be.
   */
  refundable: boolean;
  /**
   * The body as it arrives. `onEnd` (for Idempotency-Key replays) gets every byte once a stream ended, or
   * null once it broke or its reader gave up: then it is not whole and must not be served again.
   */
  body(onEnd?: (bytes: Buffer | null) => void): ReadableStream<Uint8Array> | Buffer;
}

/** No answer from the plugin: the error to answer, and whether the upstream had the request by then. */
export class NoPluginAnswer extends Error {
  constructor(
    readonly answer: HttpError,
    /** The request went out whole: the plugin may have done the work, so the call stays paid. */
    readonly upstreamHadRequest: boolean,
  ) {
    super(answer.message);
    this.name = "NoPluginAnswer";
  }
}

/** Calls the plugin; throws NoPluginAnswer (504 `upstream_timeout` / 502 `upstream_unreachable`) without one. */
export async function callPlugin(call: PluginCall): Promise<PluginAnswer> {
  const { plugin } = call;
  const streaming = call.wantsStream && plugin.streaming;
  const timeoutMs = call.timeoutMs ?? UPSTREAM_TIMEOUT_MS;
  let res: OutboundResponse;
  try {
    res = await client.open({
      method: "POST",
      url: plugin.upstream.url,
      headers: {
        ...plugin.upstream.headers,
        accept: streaming ? "text/event-stream" : "application/json",
        "x-plugin-id": plugin.id,
      },
      json: streaming ? { ...call.body, stream: true } : call.body,
      requestId: call.requestId,
      name: `plugin "${plugin.id}"`,
      timeoutMs,
      maxResponseBytes: MAX_PLUGIN_ANSWER_BYTES,
    });
  } catch (err) {
    throw upstreamFailure(plugin.id, err, timeoutMs);
  }
  const contentType = headerOf(res.headers["content-type"]);
  const refundable = res.status >= 500 && res.status !== 504;
  const isEventStream = /^text\/event-stream\b/i.test(contentType ?? "");
  if (streaming && isEventStream && res.status < 500) {
    return {
      status: res.status,
      contentType,
      refundable,
      body: (onEnd) => eventStream(res, onEnd),
    };
  }
  let bytes: Buffer;
  try {
    bytes = await res.readBody();
  } catch (err) {
    throw upstreamFailure(plugin.id, err, timeoutMs);
  }
  return { status: res.status, contentType, refundable, body: () => bytes };
}

function eventStream(
  res: OutboundResponse,
  onEnd?: (bytes: Buffer | null) => void,
): ReadableStream<Uint8Array> {
  const iterator = res.stream({ idleTimeout: true })[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let ended = false;
  const end = (bytes: Buffer | null) => {
    if (ended) return;
    ended = true;
    onEnd?.(bytes);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await iterator.next();
        if (done) {
          controller.close();
          end(Buffer.concat(seen));
          return;
        }
        if (onEnd) seen.push(value);
        controller.enqueue(new Uint8Array(value));
      } catch (err) {
        end(null);
        controller.error(err);
      }
    },
    async cancel() {
      end(null);
      await iterator.return?.();
    },
  });
}

function upstreamFailure(id: string, err: unknown, timeoutMs: number): unknown {
  if (!(err instanceof OutboundError)) return err;
  const sent = err.requestSent;
  if (err.reason === "timeout") return new NoPluginAnswer(upstreamTimeout(id, timeoutMs / 1000, sent), sent);
  return new NoPluginAnswer(upstreamUnreachable(id, err.detail, sent), sent);
}

function headerOf(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}
