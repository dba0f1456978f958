/**
 * Sending a request body larger than a server reads, with real clients, for the contract tests of body
 * limits: what the client could read (the 413) and whether it could finish sending.
 */
import { request } from "node:http";

export interface SentBody {
  /** The answer's status and body, when the client could read one. */
  status: number | null;
  body: string;
  /** Bytes the client handed to the connection and saw flushed. */
  sent: number;
  /** The client sent the whole body. */
  complete: boolean;
  /** The client's error (`EPIPE`, `ECONNRESET`…), if the exchange ended in one. */
  error: string | null;
}

export interface BodyToSend {
  bytes: number;
  /** Without a Content-Length (`Transfer-Encoding: chunked`). */
  chunked?: boolean;
  headers?: Record<string, string>;
}

const CHUNK = 64 * 1024;

/**
 * POSTs `bytes` bytes with node:http as a program would (its own connection, `Connection: close`), writing
 * as fast as the connection takes them; settles once the connection is closed.
 */
export function postWithNodeHttp(url: string, { bytes, chunked = false, headers = {} }: BodyToSend) {
  return new Promise<SentBody>((resolve) => {
    const result: SentBody = { status: null, body: "", sent: 0, complete: false, error: null };
    const req = request(url, {
      method: "POST",
      agent: false,
      headers: chunked ? headers : { ...headers, "content-length": String(bytes) },
    });
    req.on("response", (res) => {
      result.status = res.statusCode ?? null;
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        result.body += text;
      });
      res.on("error", () => undefined);
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      result.error ??= err.code ?? err.message;
    });
    req.on("close", () => resolve(result));
    let queued = 0;
    const write = () => {
      while (queued < bytes) {
        const size = Math.min(CHUNK, bytes - queued);
        queued += size;
        const more = req.write(Buffer.alloc(size, 0x20), (err) => {
          if (!err) result.sent += size;
        });
        if (!more) return void req.once("drain", write);
      }
      req.end(() => {
        result.complete = result.error === null && result.sent === bytes;
      });
    };
    write();
  });
}

/**
 * POSTs `bytes` bytes with fetch (undici, keep-alive): a Buffer body has a Content-Length, a stream body is
 * chunked. `pulled()` is how much of a stream body undici has taken to send.
 */
export function postWithFetch(url: string, { bytes, chunked = false, headers = {} }: BodyToSend) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= bytes) return controller.close();
      const size = Math.min(CHUNK, bytes - pulled);
      pulled += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  const response = fetch(url, {
    method: "POST",
    headers,
    body: chunked ? stream : Buffer.alloc(bytes, 0x20),
    duplex: "half",
  } as RequestInit);
  return { response, pulled: () => pulled };
}
