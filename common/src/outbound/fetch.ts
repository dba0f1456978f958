/**
 * The one outbound HTTP client for user-supplied URLs: every hop passes the URL guard, names are resolved
 * by the guarded lookup and the connected address is checked again, redirects are followed by hand up to
 * a limit, one deadline covers the whole exchange, and the body is read with a byte limit (after
 * decompression, so a small gzip bomb cannot pass).
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import zlib from "node:zlib";
import {
  assertOutboundUrl,
  forbiddenAddressReason,
  guardedLookup,
  isAllowedHost,
  OutboundError,
  type OutboundPolicy,
} from "./guard";

export interface OutboundRequest {
  timeoutMs: number;
  /** Redirects followed at most; one more is an error. */
  maxRedirects: number;
  headers?: Record<string, string>;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** Reads the decompressed body; more than `maxBytes` is cut off there and refused. */
  readBody(maxBytes: number): Promise<Buffer>;
  /** Drops the body and the deadline (e.g. after a non-2xx status). */
  discard(): void;
}

export interface OutboundClient {
  open(url: URL, request: OutboundRequest): Promise<OutboundResponse>;
  close(): void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function createOutboundClient(policy: OutboundPolicy): OutboundClient {
  const agents = {
    "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
    "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  const lookup = guardedLookup(policy);

  const requestOnce = (url: URL, headers: Record<string, string>, signal: AbortSignal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const protocol = url.protocol as "http:" | "https:";
      const transport = protocol === "https:" ? https : http;
      const req = transport.request(
        url,
        { method: "GET", headers, lookup, signal, agent: agents[protocol] },
        resolve,
      );
      req.on("socket", (socket: Socket) => {
        // The address actually connected to, checked again (covers every path to a socket). A socket
        // reused from the keep-alive pool was checked when it connected.
        if (!socket.connecting) return;
        socket.once("connect", () => {
          if (isAllowedHost(policy, url.hostname)) return;
          const reason = forbiddenAddressReason(socket.remoteAddress ?? "");
          if (reason) {
            req.destroy(
              new OutboundError(
                "refused",
                `refused to fetch ${url.hostname}: connected to a ${reason} address`,
              ),
            );
          }
        });
      });
      req.on("error", reject);
      req.end();
    });

  return {
    async open(start, { timeoutMs, maxRedirects, headers = {} }) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      const fail = (err: unknown): never => {
        clearTimeout(timer);
        throw toOutboundError(err, controller.signal, timeoutMs);
      };
      const sendHeaders = { "accept-encoding": "gzip, deflate, br", ...headers };
      let url = start;
      let res: IncomingMessage | undefined;
      for (let hop = 0; ; hop++) {
        try {
          assertOutboundUrl(url, policy);
          res = await requestOnce(url, sendHeaders, controller.signal);
        } catch (err) {
          return fail(err);
        }
        const location = res.headers.location;
        if (!REDIRECTS.has(res.statusCode ?? 0) || !location) break;
        res.resume();
        if (hop >= maxRedirects) {
          return fail(
            new OutboundError("too_many_redirects", `too many redirects (more than ${maxRedirects})`),
          );
        }
        try {
          url = new URL(location, url);
        } catch {
          return fail(new OutboundError("network", `the page redirected to an invalid URL (${location})`));
        }
      }
      const response = res;
      return {
        url,
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? "",
        headers: response.headers,
        discard() {
          clearTimeout(timer);
          response.destroy();
        },
        async readBody(maxBytes) {
          try {
            return await readLimited(response, maxBytes);
          } catch (err) {
            response.destroy();
            throw toOutboundError(err, controller.signal, timeoutMs);
          } finally {
            clearTimeout(timer);
          }
        },
      };
    },
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

function toOutboundError(err: unknown, signal: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  if (signal.aborted) return new OutboundError("timeout", `timed out after ${formatSeconds(timeoutMs)}`);
  const code = (err as NodeJS.ErrnoException).code;
  const known = code ? NETWORK_ERRORS[code] : undefined;
  const message = known ? `${known} (${code})` : code ? code : (err as Error).message;
  return new OutboundError("network", `could not fetch the page: ${message}`);
}

const NETWORK_ERRORS: Record<string, string> = {
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  EPROTO: "TLS handshake failed",
  CERT_HAS_EXPIRED: "the site's certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the site's certificate is self-signed",
  ERR_TLS_CERT_ALTNAME_INVALID: "the site's certificate does not match its name",
};

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function decoderFor(
  encoding: string | undefined,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch ((encoding ?? "").trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

async function readLimited(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    new OutboundError(
      "too_large",
      `the page is larger than the ${maxBytes}-byte limit; it was cut off there`,
    );
  const declared = Number(res.headers["content-length"]);
  const decoder = decoderFor(res.headers["content-encoding"]);
  if (!decoder && Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const stream: Readable = decoder ? res.pipe(decoder) : res;
  if (decoder) res.on("error", (err) => decoder.destroy(err));
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      stream.off("data", onData);
      if (decoder && !decoder.destroyed) decoder.destroy();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge());
      else chunks.push(chunk);
    };
    stream.on("data", onData);
    stream.once("error", fail);
    res.once("close", () => {
      if (!res.complete) fail(new Error("the page's connection closed before the body was complete"));
    });
    stream.once("end", resolve);
  });
  return Buffer.concat(chunks, size);
}
