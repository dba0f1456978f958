/**
 * A route's `Content-Length`, kept on the way out. Next's route handler streaming drops the header of every
 * answer (next/dist/server/send-response.js, FORBIDDEN_HEADERS: a body it may have decoded cannot keep its
 * length), so a download would go out chunked. `route()` copies the length a handler sets into a private
 * header, which Next passes on, and web/server.ts turns it back into `Content-Length` as the head is
 * written — unless the answer is being re-encoded — and never sends the private header itself.
 */
import type { ServerResponse } from "node:http";

export const DECLARED_LENGTH_HEADER = "x-svc-content-length";

/** The handler's answer with its Content-Length also under the private header (the same answer otherwise). */
export function declareContentLength(response: Response): Response {
  const length = response.headers.get("content-length");
  if (length === null || response.headers.has(DECLARED_LENGTH_HEADER)) return response;
  // A forwarded upstream answer's length may be of its encoded bytes, which fetch has decoded.
  if (response.headers.has("content-encoding")) return response;
  try {
    response.headers.set(DECLARED_LENGTH_HEADER, length);
  } catch {
    // an answer with immutable headers (a forwarded fetch response) goes out as Next sends it
  }
  return response;
}

/**
 * web/server.ts, per request: when the head is written, a declared length becomes `Content-Length` (the
 * private header is removed either way).
 */
export function sendDeclaredContentLength(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    const declared = res.getHeader(DECLARED_LENGTH_HEADER);
    if (declared !== undefined) {
      res.removeHeader(DECLARED_LENGTH_HEADER);
      const length = Number(declared);
      const reencoded = res.hasHeader("content-encoding") || res.hasHeader("transfer-encoding");
      if (Number.isSafeInteger(length) && length >= 0 && !reencoded && !res.hasHeader("content-length")) {
        res.setHeader("content-length", length);
        cutOffOnLengthMismatch(res);
      }
    }
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}

/**
 * Node checks the body against the length (`strictContentLength`) and throws on a mismatch; the code
 * writing the body (Next's piping) would log that and leave the client waiting for the missing bytes. The
 * connection is closed instead: a client sees the answer cut off, never a shorter one as complete.
 */
function cutOffOnLengthMismatch(res: ServerResponse): void {
  res.strictContentLength = true;
  for (const method of ["write", "end"] as const) {
    const original = res[method] as (...args: unknown[]) => unknown;
    res[method] = function (this: ServerResponse, ...args: unknown[]) {
      try {
        return original.apply(this, args);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ERR_HTTP_CONTENT_LENGTH_MISMATCH") throw err;
        res.destroy(err as Error);
        return method === "write" ? false : res;
      }
    } as never;
  }
}
