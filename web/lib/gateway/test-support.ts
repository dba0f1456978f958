/**
 * Test support of the gateway's tests: a loopback plugin upstream that echoes JSON, streams server-sent
 * events one held chunk at a time, or fails; and helpers to call the gateway route.
 */
import type { IncomingMessage } from "node:http";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";

/** The least chat call the AI plugins take (one message). */
export const HI = { messages: [{ role: "user", content: "hi" }] };

export interface FakePlugin {
  url: string;
  upstream: FakeUpstream;
  /** Bodies of the calls received, parsed. */
  calls: { body: Record<string, unknown>; headers: IncomingMessage["headers"] }[];
  /** Answer with this status (and an error body) from now on; null: answer normally. */
  failWith(status: number | null): void;
  /** The next stream sends its chunks one by one, each after `release()`; resolves when one was written. */
  streamChunks(chunks: string[]): { release(): void; written(n: number): Promise<void> };
  close(): Promise<void>;
}

export async function startFakePlugin(): Promise<FakePlugin> {
  const calls: FakePlugin["calls"] = [];
  let failure: number | null = null;
  let script: {
    chunks: string[];
    gates: (() => void)[];
    waits: Promise<void>[];
    wrote: number;
    onWrite: (() => void)[];
  } | null = null;
  const upstream = await startFakeUpstream(async (req, res, raw) => {
    const body = JSON.parse(raw.toString("utf8") || "{}") as Record<string, unknown>;
    calls.push({ body, headers: req.headers });
    if (failure !== null) return sendJson(res, failure, { error: "plugin failed" });
    if (req.headers.accept === "text/event-stream" && script) {
      const current = script;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (let i = 0; i < current.chunks.length; i++) {
        await current.waits[i];
        res.write(current.chunks[i]);
        current.wrote++;
        for (const notify of current.onWrite.splice(0)) notify();
      }
      res.end();
      return;
    }
    sendJson(res, 200, { plugin: req.headers["x-plugin-id"], echo: body });
  });
  return {
    url: `${upstream.url}/run`,
    upstream,
    calls,
    failWith(status) {
      failure = status;
    },
    streamChunks(chunks) {
      const gates: (() => void)[] = [];
      const waits = chunks.map((_, i) =>
        i === 0 ? Promise.resolve() : new Promise<void>((resolve) => gates.push(resolve)),
      );
      const current = { chunks, gates, waits, wrote: 0, onWrite: [] as (() => void)[] };
      script = current;
      return {
        release: () => gates.shift()?.(),
        written: async (n) => {
          while (current.wrote < n) await new Promise<void>((resolve) => current.onWrite.push(resolve));
        },
      };
    },
    close: () => upstream.close(),
  };
}

/**
 * Reads a streamed gateway answer whose plugin holds each chunk after the first (`streamChunks`): the first
 * chunk is read while the second is still held — so it came through unbuffered — then the rest.
 */
export async function readHeldStream(
  res: Response,
  script: ReturnType<FakePlugin["streamChunks"]>,
): Promise<{ first: string; rest: string }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  await script.written(1);
  script.release();
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  return { first, rest };
}
