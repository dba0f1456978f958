/**
 * The HTTP/1.1 the fast path reads and writes itself: a client's request head turned into the head the
 * runtime gets, and the runtime's response head turned into the head the client gets. Each produces
 * the bytes the Node server + undici path (`../proxy.ts`) puts on the wire for the same message; what
 * this module does not accept exactly (any doubt at all) is left to that path, which decides as before.
 */
import { STATUS_CODES } from "node:http";
import { HOP_BY_HOP_HEADERS } from "@svc/common";
import { NOT_FORWARDED } from "../proxy";

/** The end of a message head. */
export const HEAD_END = Buffer.from("\r\n\r\n");
/** Node's default `maxHeaderSize`, and undici's limit on a response head. */
export const MAX_HEAD = 16 * 1024;

// Origin-form targets of printable ASCII only, HTTP/1.1 only, the methods the runtime is sent by clients.
const REQUEST_LINE = /(GET|POST|PUT|PATCH|DELETE|OPTIONS) (\/[\x21-\x7e]*) HTTP\/1\.1\r\n/y;
const STATUS_LINE = /HTTP\/1\.([01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?\r\n/y;
const LENGTH = /^\d{1,15}$/;
const KEEP_ALIVE_TIMEOUT = /timeout=(\d+)/;
const CHUNKED = /(?:^|,)[\t ]*chunked$/i;
/** undici sends `content-length: 0` for a bodiless request of these methods only (RFC 9110 8.6). */
const EXPECTS_PAYLOAD = new Set(["POST", "PUT", "PATCH"]);

/** A request the fast path forwards: the head for the runtime and how much body follows the client's head. */
export interface RuntimeRequest {
  /** Bytes of the client's head, the blank line included. */
  headLength: number;
  /** Bytes of body that follow it. */
  bodyLength: number;
  /** The request head for the runtime, blank line included (latin1). */
  head: string;
}

/** Characters of a field name (RFC 9110 token). */
const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
  TOKEN[c.charCodeAt(0)] = 1;

/**
 * Field lines found by `scanFields`, five numbers each: name start, colon, value start and end (blanks
 * around the value left out), and whether the name has upper-case letters. Reused by every call.
 */
const marks: number[] = [];

/**
 * Checks and splits the field lines of `head` from `start` (which ends with the last line's CRLF) as
 * Node's and undici's parsers accept them: a token name, a colon, a value without control characters but
 * tab (so no obsolete line folding either). Returns how many lines `marks` describes, or -1.
 */
function scanFields(head: string, start: number): number {
  const end = head.length;
  let count = 0;
  let at = start;
  while (at < end) {
    let i = at;
    let upper = 0;
    for (;;) {
      if (i === end) return -1;
      const c = head.charCodeAt(i);
      if (c === 58) break;
      if (TOKEN[c] === 0) return -1;
      if (c <= 90 && c >= 65) upper = 1;
      i++;
    }
    if (i === at) return -1;
    const colon = i++;
    while (i < end && (head.charCodeAt(i) === 32 || head.charCodeAt(i) === 9)) i++;
    const from = i;
    let to = i;
    for (;;) {
      if (i === end) return -1;
      const c = head.charCodeAt(i);
      if (c === 13) break;
      if ((c < 32 && c !== 9) || c === 127) return -1;
      i++;
      if (c !== 32 && c !== 9) to = i;
    }
    if (head.charCodeAt(i + 1) !== 10) return -1;
    const m = count * 5;
    marks[m] = at;
    marks[m + 1] = colon;
    marks[m + 2] = from;
    marks[m + 3] = to;
    marks[m + 4] = upper;
    count++;
    at = i + 2;
  }
  return count;
}

/** The lower-case name of field line `m` (an index into `marks`). */
function fieldName(head: string, m: number): string {
  const name = head.slice(marks[m], marks[m + 1]);
  return marks[m + 4] === 1 ? name.toLowerCase() : name;
}

/**
 * Reads the request at the start of `buf`. Returns null when the fast path must not take it: an incomplete
 * head, a path the wrapper answers itself (`forRuntime` false), or anything but a plain keep-alive HTTP/1.1
 * request with at most a `Content-Length` body (chunked bodies, `Expect`, upgrades, `Connection: close`,
 * HTTP/1.0, HEAD, absolute or escaped targets, a missing or repeated `Host`, malformed fields).
 */
export function readRuntimeRequest(
  buf: Buffer,
  remoteAddress: string,
  forRuntime: (target: string) => boolean,
): RuntimeRequest | null {
  const end = buf.indexOf(HEAD_END);
  if (end === -1 || end > MAX_HEAD) return null;
  const head = buf.toString("latin1", 0, end + 2);
  if (head === memo.head && remoteAddress === memo.remoteAddress)
    return forRuntime(memo.target) ? memo.request : null;
  REQUEST_LINE.lastIndex = 0;
  const line = REQUEST_LINE.exec(head);
  if (line === null || !forRuntime(line[2])) return null;
  const method = line[1];
  let host: string | null = null;
  let length = -1;
  let fields = "";
  const count = scanFields(head, REQUEST_LINE.lastIndex);
  if (count === -1) return null;
  for (let m = 0; m < count * 5; m += 5) {
    const name = fieldName(head, m);
    const value = head.slice(marks[m + 2], marks[m + 3]);
    switch (name) {
      case "host":
        if (host !== null) return null;
        host = value;
        break;
      case "content-length":
        if (length !== -1 || !LENGTH.test(value)) return null;
        length = Number(value);
        break;
      case "connection":
        if (value.toLowerCase() !== "keep-alive") return null;
        break;
      case "transfer-encoding":
      case "expect":
      case "upgrade":
        return null;
      default:
        if (!NOT_FORWARDED.has(name)) fields += `${name}: ${value}\r\n`;
    }
  }
  if (host === null) return null;
  // undici's head: host and connection first, the end-to-end fields as given, the wrapper's forwarding
  // fields, then the length (always for POST, PUT and PATCH; never for a bodiless GET, DELETE or OPTIONS).
  let out = `${method} ${line[2]} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n${fields}x-forwarded-for: ${remoteAddress}\r\nx-forwarded-proto: http\r\nx-forwarded-host: ${host}\r\n`;
  if (length > 0 || EXPECTS_PAYLOAD.has(method)) out += `content-length: ${length > 0 ? length : 0}\r\n`;
  const request = { headLength: end + 4, bodyLength: length > 0 ? length : 0, head: `${out}\r\n` };
  memo.head = head;
  memo.remoteAddress = remoteAddress;
  memo.target = line[2];
  memo.request = request;
  return request;
}

/**
 * The last request head read and what it gave: programs repeat the same head on a keep-alive connection
 * (polls, calls that differ only in their body), and reading it again was a tenth of the fast path's time.
 */
const memo: { head: string; remoteAddress: string; target: string; request: RuntimeRequest | null } = {
  head: "",
  remoteAddress: "",
  target: "",
  request: null,
};

/** How the runtime's response body is delimited: none, `Content-Length`, chunked, or until it closes. */
export type Framing = "none" | "length" | "chunked" | "until-close";

/** The runtime's response head as the client gets it, and what the fast path needs to relay the body. */
export interface RuntimeResponse {
  /** Bytes of the runtime's head, the blank line included. */
  headLength: number;
  /** The client's head, blank line included (latin1). */
  head: string;
  framing: Framing;
  /** Body bytes for "length". */
  length: number;
  /** How long the connection to the runtime may be reused after this response (ms); 0: not at all. */
  reuseMs: number;
}

/** The head is not complete yet. */
export const INCOMPLETE = 0;
/** The runtime did not answer HTTP the proxy can relay: the client gets a 502. */
export const INVALID = 1;

/**
 * Reads the runtime's response head at the start of `buf` and writes the client's head as the slow path
 * does: undici's parsed fields (names lower-cased, fields of one name together), hop-by-hop fields and
 * those `Connection` names dropped, then what Node's `ServerResponse` adds (`Date` when missing,
 * `Connection: keep-alive`, `Keep-Alive`, and `Transfer-Encoding: chunked` for a body without a length).
 */
export function readRuntimeResponse(
  buf: Buffer,
  keepAliveLine: string,
  defaultReuseMs: number,
): RuntimeResponse | typeof INCOMPLETE | typeof INVALID {
  const end = buf.indexOf(HEAD_END);
  if (end === -1) return buf.length > MAX_HEAD ? INVALID : INCOMPLETE;
  if (end > MAX_HEAD) return INVALID;
  const text = buf.toString("latin1", 0, end + 2);
  if (
    text === answerMemo.text &&
    keepAliveLine === answerMemo.keepAliveLine &&
    defaultReuseMs === answerMemo.defaultReuseMs
  )
    return answerMemo.response as RuntimeResponse;
  STATUS_LINE.lastIndex = 0;
  const status = STATUS_LINE.exec(text);
  const code = status === null ? 0 : Number(status[2]);
  // Informational answers: undici fails on a 100 and the slow path cannot relay the others either.
  if (status === null || code < 200) return INVALID;
  const http10 = status[1] === "0";
  let close = http10;
  let named: string[] | null = null;
  let length = -1;
  let chunked = false;
  let encoded = false;
  let hasDate = false;
  let hintMs = -1;
  let fields = "";
  /** Field names in order; a name seen before, not on the line just above, makes the lines regrouped. */
  const seen: string[] = [];
  let scattered = false;
  const count = scanFields(text, STATUS_LINE.lastIndex);
  if (count === -1) return INVALID;
  for (let m = 0; m < count * 5; m += 5) {
    const name = fieldName(text, m);
    const value = text.slice(marks[m + 2], marks[m + 3]);
    switch (name) {
      case "connection":
        for (const token of value.toLowerCase().split(",")) {
          const option = token.trim();
          if (option === "close") close = true;
          else if (option === "keep-alive") {
            // (`Keep-Alive` is hop-by-hop anyway: naming it changes no field.)
            if (http10) close = false;
            continue;
          }
          if (option === "") continue;
          if (named === null) named = [];
          named.push(option);
        }
        continue;
      case "keep-alive": {
        const timeout = KEEP_ALIVE_TIMEOUT.exec(value);
        if (timeout) hintMs = Number(timeout[1]) * 1000;
        continue;
      }
      case "transfer-encoding":
        encoded = true;
        chunked = CHUNKED.test(value);
        continue;
      case "content-length":
        if (!LENGTH.test(value) || (length !== -1 && length !== Number(value))) return INVALID;
        length = Number(value);
        break;
      case "date":
        hasDate = true;
        break;
      default:
        if (HOP_BY_HOP_HEADERS.has(name)) continue;
    }
    if (seen.length > 0 && seen[seen.length - 1] !== name && seen.includes(name)) scattered = true;
    seen.push(name);
    fields += `${name}: ${value}\r\n`;
  }
  if (encoded && length !== -1) return INVALID;
  if (named !== null) {
    // A length `Connection` calls hop-by-hop would leave the client no framing it can trust.
    if ((named as string[]).includes("content-length")) return INVALID;
    if ((named as string[]).includes("date")) hasDate = false;
  }
  if (scattered || named !== null) fields = endToEndFields(fields, named);
  let head = `HTTP/1.1 ${code} ${status[3] ?? ""}\r\n${fields}`;
  if (!hasDate) head += `Date: ${httpDate()}\r\n`;
  head += keepAliveLine;
  const framing: Framing =
    code === 204 || code === 304 || length === 0
      ? "none"
      : chunked
        ? "chunked"
        : length !== -1
          ? "length"
          : "until-close";
  // Node chose the client's framing at `writeHead`: a body without a length is re-chunked.
  head += framing === "chunked" || framing === "until-close" ? "Transfer-Encoding: chunked\r\n\r\n" : "\r\n";
  // undici's reuse rule: the runtime's keep-alive hint less 2 s, else the pool's default.
  let reuseMs = close || framing === "until-close" ? 0 : defaultReuseMs;
  if (reuseMs > 0 && hintMs !== -1) reuseMs = Math.max(0, Math.min(hintMs - 2000, 600_000));
  const response = { headLength: end + 4, head, framing, length: length === -1 ? 0 : length, reuseMs };
  // A head that carries its own date gives the same answer head every time it comes again.
  if (hasDate) {
    answerMemo.text = text;
    answerMemo.keepAliveLine = keepAliveLine;
    answerMemo.defaultReuseMs = defaultReuseMs;
    answerMemo.response = response;
  }
  return response;
}

/** The last response head read with its own `Date` and what it gave (the runtime repeats its heads). */
const answerMemo: {
  text: string;
  keepAliveLine: string;
  defaultReuseMs: number;
  response: RuntimeResponse | null;
} = { text: "", keepAliveLine: "", defaultReuseMs: 0, response: null };

/**
 * Field lines (`name: value\r\n`, names lower-case) as undici's header object hands them to Node: the
 * lines of one name together where the name first appears, and without the names `Connection` listed.
 */
function endToEndFields(fields: string, named: string[] | null): string {
  const names: string[] = [];
  const lines: string[] = [];
  for (let at = 0; at < fields.length; ) {
    const eol = fields.indexOf("\r\n", at) + 2;
    names.push(fields.slice(at, fields.indexOf(":", at)));
    lines.push(fields.slice(at, eol));
    at = eol;
  }
  let out = "";
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (name === "" || named?.includes(name)) continue;
    for (let j = i; j < names.length; j++) {
      if (names[j] !== name) continue;
      out += lines[j];
      names[j] = "";
    }
  }
  return out;
}

/** `Connection`/`Keep-Alive` fields of a keep-alive answer, as Node writes them for `keepAliveTimeout`. */
export function keepAliveFields(keepAliveTimeout: number): string {
  return keepAliveTimeout
    ? `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveTimeout / 1000)}\r\n`
    : "Connection: keep-alive\r\n";
}

/** The slow path's 502 answer, byte for byte (`res.writeHead(502, …)` then `res.end(UNAVAILABLE)`). */
export function unavailableAnswer(body: string, keepAliveLine: string): string {
  return `HTTP/1.1 502 ${STATUS_CODES[502]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${body.length}\r\nDate: ${httpDate()}\r\n${keepAliveLine}\r\n${body}`;
}

let dateText = "";
let dateUntil = 0;

/** The `Date` field's value, computed once a second as Node's own `utcDate` does. */
export function httpDate(): string {
  const now = Date.now();
  if (now >= dateUntil) {
    dateText = new Date(now).toUTCString();
    dateUntil = now - (now % 1000) + 1000;
  }
  return dateText;
}
