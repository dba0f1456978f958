/**
 * The one outbound HTTP client. Every call has one deadline over the whole exchange, a cap on the answer's
 * (decompressed) size, a redirect policy (a redirect is an error unless the client follows a set number),
 * an `x-request-id` header when the caller has one, and failures named by reason and upstream
 * (`OutboundError`). Configured upstreams (the backend, agents, providers) are called as configured; a
 * client for user-supplied URLs gets a `policy`, and then every hop passes the URL guard, names are resolved
 * by the guarded lookup and the connected address is checked again. A redirect to another origin drops the
 * credentials (`authorization`, `cookie`, `proxy-authorization` and the request's `sensitiveHeaders`).
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
  outboundPolicy,
} from "./guard";

export interface OutboundClientOptions {
  /** Who failures name: "the agent", "backend", … ("the upstream" unless told). */
  name?: string;
  /** Paths given to `request`/`open` are appended to it. */
  baseUrl?: string;
  /** The URL guard, for clients that fetch user-supplied URLs; configured upstreams leave it out. */
  policy?: OutboundPolicy;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Redirects followed at most; 0 (the default) makes any redirect an error. */
  maxRedirects?: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
}

export interface OutboundRequest {
  method?: string;
  /** An absolute URL, or a path appended to the client's `baseUrl`. */
  url: string | URL;
  headers?: Record<string, string>;
  /** Sent as JSON (with its content type) when present. */
  json?: unknown;
  body?: string | Buffer;
  timeoutMs?: number;
  maxRedirects?: number;
  /** A redirect is the answer (a health probe reports its status) instead of an error or a hop. */
  returnRedirects?: boolean;
  maxResponseBytes?: number;
  /** Gives the call up early; the failure's reason is `aborted`. */
  signal?: AbortSignal;
  /** Sent as `x-request-id`, so the upstream's log lines join ours. */
  requestId?: string;
  /** Overrides the client's name in failures. */
  name?: string;
  /**
   * More headers that only the first origin may see (e.g. a signed payment): dropped, like `authorization`,
   * `cookie` and `proxy-authorization`, when a redirect leads to another origin.
   */
  sensitiveHeaders?: readonly string[];
  /**
   * The connections to use (configured upstreams only; a client with a `policy` keeps its own): e.g. the
   * agent client's connections on which the agent proved its identity (`agent-identity.ts`).
   */
  agent?: http.Agent;
}

export interface OutboundResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** Reads the decompressed body; more than `maxBytes` (the call's cap unless told) is refused. */
  readBody(maxBytes?: number): Promise<Buffer>;
  /**
   * The body as it arrives (e.g. server-sent events), uncapped. The deadline still covers it; with
   * `idleTimeout` it restarts at each chunk instead (a long stream is fine, a stalled one is not).
   */
  stream(options?: { idleTimeout?: boolean }): AsyncIterable<Buffer>;
  /** Drops the body and the deadline (e.g. after a non-2xx status). */
  discard(): void;
}

/** A whole answer: any status is an answer, everything else an OutboundError. */
export interface OutboundAnswer {
  url: URL;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  ok: boolean;
  text: string;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  json(): unknown;
}

export interface OutboundClient {
  open(request: OutboundRequest): Promise<OutboundResponse>;
  request(request: OutboundRequest): Promise<OutboundAnswer>;
  close(): void;
}

export const OUTBOUND_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_RESPONSE_BYTES = 1024 * 1024;
export const REQUEST_ID_HEADER = "x-request-id";
/** How an `unreachable` failure's detail starts when the upstream closed the connection without answering. */
export const CLOSED_WITHOUT_ANSWER = "connection closed without an answer";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers never carried to another origin by a redirect (browsers' fetch drops `authorization`). */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** Deletes `names` from `headers`, whatever the case of their keys. */
function dropHeaders(headers: Record<string, string>, names: ReadonlySet<string>): void {
  for (const key of Object.keys(headers)) if (names.has(key.toLowerCase())) delete headers[key];
}

export function createOutboundClient(options: OutboundClientOptions = {}): OutboundClient {
  const policy = options.policy;
  const pooled = policy
    ? {
        "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
        "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
      }
    : undefined;
  const lookup = policy ? guardedLookup(policy) : undefined;

  const requestOnce = (
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal: AbortSignal,
    name: string,
    exchange: Exchange,
    agent: http.Agent | undefined,
  ) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const protocol = url.protocol as "http:" | "https:";
      const transport = protocol === "https:" ? https : http;
      const req = transport.request(
        url,
        { method, headers, signal, ...(lookup ? { lookup } : {}), agent: pooled?.[protocol] ?? agent },
        (res) => {
          exchange.sent = true;
          resolve(res);
        },
      );
      // Written whole to a connected socket: from here the upstream may act on it.
      req.on("finish", () => {
        exchange.sent = true;
      });
      if (policy) {
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
                  { upstream: name },
                ),
              );
            }
          });
        });
      }
      req.on("error", reject);
      req.end(body);
    });

  const resolveUrl = (target: string | URL): URL => {
    if (target instanceof URL) return target;
    if (options.baseUrl && target.startsWith("/"))
      return new URL(`${options.baseUrl.replace(/\/+$/, "")}${target}`);
    return new URL(target);
  };

  const open = async (request: OutboundRequest): Promise<OutboundResponse> => {
    const name = request.name ?? options.name ?? "the upstream";
    const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
    const maxRedirects = request.maxRedirects ?? options.maxRedirects ?? 0;
    const capBytes = request.maxResponseBytes ?? options.maxResponseBytes ?? OUTBOUND_MAX_RESPONSE_BYTES;
    const deadline = new AbortController();
    let timer = setTimeout(() => deadline.abort(), timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    const exchange: Exchange = { sent: false };
    const context = { name, timeoutMs, deadline: deadline.signal, caller: request.signal, exchange };
    const fail = (err: unknown): never => {
      clearTimeout(timer);
      throw toOutboundError(err, context);
    };
    if (request.signal?.aborted) fail(new Error("aborted"));

    let method = (request.method ?? "GET").toUpperCase();
    let body: Buffer | undefined;
    const headers: Record<string, string> = {
      "accept-encoding": "gzip, deflate, br",
      ...options.headers,
      ...request.headers,
    };
    if (request.json !== undefined) {
      body = Buffer.from(JSON.stringify(request.json));
      headers["content-type"] ??= "application/json";
    } else if (request.body !== undefined) {
      body = Buffer.from(request.body);
    }
    // A bodiless POST states its empty body rather than going chunked.
    if (body || (method !== "GET" && method !== "HEAD"))
      headers["content-length"] = String(body?.length ?? 0);
    if (request.requestId) headers[REQUEST_ID_HEADER] = request.requestId;
    const sensitive = new Set(
      [...CREDENTIAL_HEADERS, ...(request.sensitiveHeaders ?? [])].map((h) => h.toLowerCase()),
    );

    let url: URL;
    try {
      url = resolveUrl(request.url);
    } catch {
      return fail(
        new OutboundError("refused", `${name}: invalid URL (${String(request.url)})`, { upstream: name }),
      );
    }
    let res: IncomingMessage | undefined;
    for (let hop = 0; ; hop++) {
      try {
        if (policy) assertOutboundUrl(url, policy);
        res = await requestOnce(url, method, headers, body, signal, name, exchange, request.agent);
      } catch (err) {
        return fail(err);
      }
      const location = res.headers.location;
      if (!REDIRECTS.has(res.statusCode ?? 0) || !location || request.returnRedirects) break;
      // A redirect's body is never read: its connection goes now, not at the deadline or never.
      res.destroy();
      if (maxRedirects === 0) {
        return fail(
          new OutboundError("redirect", `${name} answered with a redirect, which is not followed`, {
            upstream: name,
            status: res.statusCode,
            detail: "answered with a redirect, which is not followed",
          }),
        );
      }
      if (hop >= maxRedirects) {
        const detail = `too many redirects (more than ${maxRedirects})`;
        return fail(new OutboundError("too_many_redirects", detail, { upstream: name, detail }));
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        const detail = `redirected to an invalid URL (${location})`;
        return fail(new OutboundError("unreachable", `${name} ${detail}`, { upstream: name, detail }));
      }
      // The credentials were meant for this origin only; once dropped they stay dropped (A → B → A too).
      if (next.origin !== url.origin) dropHeaders(headers, sensitive);
      url = next;
      // As browsers do: a 303 (and a 301/302 of a POST) turns into a GET without a body.
      if (res.statusCode === 303 || (method === "POST" && res.statusCode !== 307 && res.statusCode !== 308)) {
        method = "GET";
        body = undefined;
        delete headers["content-length"];
        delete headers["content-type"];
      }
    }
    const response = res;
    const settle = () => clearTimeout(timer);
    return {
      url,
      status: response.statusCode ?? 0,
      statusText: response.statusMessage ?? "",
      headers: response.headers,
      discard() {
        settle();
        response.destroy();
      },
      async readBody(maxBytes = capBytes) {
        try {
          return await readLimited(response, maxBytes, name);
        } catch (err) {
          response.destroy();
          throw toOutboundError(err, context);
        } finally {
          settle();
        }
      },
      async *stream({ idleTimeout = false } = {}) {
        const rearm = () => {
          if (!idleTimeout) return;
          clearTimeout(timer);
          timer = setTimeout(() => deadline.abort(), timeoutMs);
        };
        const decoder = decoderFor(response.headers["content-encoding"]);
        if (decoder) response.on("error", (err) => decoder.destroy(err));
        const source: Readable = decoder ? response.pipe(decoder) : response;
        try {
          rearm();
          for await (const chunk of source) {
            yield chunk as Buffer;
            rearm();
          }
        } catch (err) {
          throw toOutboundError(err, context);
        } finally {
          settle();
          response.destroy();
          decoder?.destroy();
        }
      },
    };
  };

  return {
    open,
    async request(request) {
      const res = await open(request);
      const text = (await res.readBody()).toString("utf8");
      return {
        url: res.url,
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
        ok: res.status >= 200 && res.status <= 299,
        text,
        json: () => parseJson(text),
      };
    },
    close() {
      pooled?.["http:"].destroy();
      pooled?.["https:"].destroy();
    },
  };
}

/** A non-2xx answer as a failure naming the upstream (for clients that treat any other status as one). */
export function httpStatusError(name: string, answer: Pick<OutboundAnswer, "status">): OutboundError {
  const detail = `answered HTTP ${answer.status}`;
  return new OutboundError("http", `${name} ${detail}`, { upstream: name, status: answer.status, detail });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What became of one call's request (a redirect's next hop counts as the same call). */
interface Exchange {
  sent: boolean;
}

interface FailureContext {
  name: string;
  timeoutMs: number;
  deadline: AbortSignal;
  caller?: AbortSignal;
  exchange: Exchange;
}

function toOutboundError(err: unknown, context: FailureContext): OutboundError {
  if (err instanceof OutboundError) {
    if (context.exchange.sent) err.requestSent = true;
    return err;
  }
  const { name } = context;
  const requestSent = context.exchange.sent;
  if (context.deadline.aborted) {
    const detail = `timed out after ${formatDuration(context.timeoutMs)}`;
    return new OutboundError("timeout", `${name} ${detail}`, {
      upstream: name,
      detail,
      timeoutMs: context.timeoutMs,
      requestSent,
    });
  }
  if (context.caller?.aborted) {
    const detail = "was given up";
    return new OutboundError("aborted", `the call to ${name} ${detail}`, {
      upstream: name,
      detail,
      requestSent,
    });
  }
  const code = (err as NodeJS.ErrnoException).code;
  const known = code ? NETWORK_ERRORS[code] : undefined;
  // Node names a connection closed before any answer "socket hang up" (ECONNRESET); kept apart from a reset.
  const detail =
    (err as Error).message === "socket hang up"
      ? `${CLOSED_WITHOUT_ANSWER} (socket hang up)`
      : known
        ? `${known} (${code})`
        : (code ?? (err as Error).message);
  return new OutboundError("unreachable", `${name} could not be reached: ${detail}`, {
    upstream: name,
    detail,
    socketCode: code,
    requestSent,
  });
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

/** "10 s" for whole seconds, "300 ms" otherwise. */
export function formatDuration(ms: number): string {
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

/** Refuses more than `maxBytes`: by `Content-Length` before reading when not compressed, else while reading. */
async function readLimited(res: IncomingMessage, maxBytes: number, name: string): Promise<Buffer> {
  const tooLarge = () => {
    const detail = `answer is larger than the ${maxBytes}-byte limit`;
    return new OutboundError("too_large", `${name}'s ${detail}`, {
      upstream: name,
      status: res.statusCode,
      detail,
      maxBytes,
    });
  };
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
      if (!res.complete) fail(new Error("the connection closed before the body was complete"));
    });
    stream.once("end", resolve);
  });
  return Buffer.concat(chunks, size);
}

/**
 * Clients of user-supplied URLs, one per allow list (the list comes from config, so in practice one per
 * process): each passes the outbound URL guard with its list and keeps its connection pool between calls.
 */
export function guardedClients(
  options: Omit<OutboundClientOptions, "policy">,
): (allowHosts: readonly string[]) => OutboundClient {
  const clients = new Map<string, OutboundClient>();
  return (allowHosts) => {
    const key = allowHosts.join(",");
    let client = clients.get(key);
    if (!client) {
      client = createOutboundClient({ ...options, policy: outboundPolicy(allowHosts) });
      clients.set(key, client);
    }
    return client;
  };
}
