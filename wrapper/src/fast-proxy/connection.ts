/**
 * One client connection on the fast path: each request for the runtime is read from the socket's bytes,
 * sent on this connection's own keep-alive connection to the runtime, and its answer relayed back as it
 * arrives, one exchange at a time. The first request the fast path does not take hands the connection,
 * with the bytes read so far, to Node's HTTP server for good (see `./index.ts`).
 */
import net from "node:net";
import { UNAVAILABLE } from "../proxy";
import {
  type Framing,
  INCOMPLETE,
  INVALID,
  readRuntimeRequest,
  readRuntimeResponse,
  unavailableAnswer,
} from "./http1";

/** What a connection needs from the server it belongs to. */
export interface FastServer {
  port: number;
  host: string;
  forRuntime(target: string): boolean;
  /** `Connection`/`Keep-Alive` fields for the server's current `keepAliveTimeout`. */
  keepAliveLine(): string;
  /** Gives the socket, and the bytes read from it but not handled, to Node's HTTP server. */
  handOff(socket: net.Socket, unread: Buffer | null): void;
  forget(connection: FastConnection): void;
  /**
   * The time (ms), updated once a second while the server has fast connections: what the fast path times
   * is counted in seconds, and a clock read per request showed in its profile.
   */
  readonly now: number;
}

/** How long an idle connection to the runtime is kept without a keep-alive hint (the undici pool's option). */
const DEFAULT_REUSE_MS = 30_000;
/** Body bytes up to this size are copied into the head's string: one write instead of two. */
const SMALL = 16 * 1024;
/** Pipelined bytes held while an exchange is in flight before the client is paused. */
const MAX_PENDING = 64 * 1024;
const CRLF = Buffer.from("\r\n");
/**
 * Every connection to the runtime reads into this one buffer (`onread`: no stream machinery per read); what
 * outlives the read (a partial head, a large body slice waiting to be written) is copied out of it.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

type Phase = "idle" | "head" | "body" | "chunk-size" | "chunk-data" | "chunk-end" | "trailers" | "done";

export class FastConnection {
  readonly client: net.Socket;
  private readonly server: FastServer;
  private readonly remoteAddress: string;
  private upstream: net.Socket | null = null;
  private reusableUntil = 0;
  /** Client bytes not handled yet (the next request, pipelined or partial). */
  private pending: Buffer | null = null;
  /** Request body bytes still to come from the client. */
  private bodyLeft = 0;
  private phase: Phase = "idle";
  /** Runtime bytes not handled yet (part of a head or a chunk-size line). */
  private upstreamRest: Buffer | null = null;
  private framing: Framing = "none";
  /** Body bytes left in the answer (`length`) or the current chunk. */
  private left = 0;
  private reuseMs = 0;
  /** The client's head until the first body bytes go out with it (Node writes it with the first write). */
  private head: string | null = null;
  private out = "";
  private corked = false;
  private pausedForUpstream = false;
  private pausedForPending = false;
  private upstreamPaused = false;
  /** Requests seen; the last time the connection did something (ms), for the server's timeouts. */
  requests = 0;
  lastActive: number;
  /** When the runtime last sent something for the exchange in flight (ms). */
  upstreamActive = 0;
  /** When the request in flight started (ms). */
  requestStarted = 0;

  constructor(client: net.Socket, server: FastServer) {
    this.client = client;
    this.server = server;
    this.remoteAddress = client.remoteAddress ?? "";
    this.lastActive = server.now;
    client.on("data", this.onClientData);
    client.on("end", this.onClientEnd);
    client.on("close", this.onClientClose);
    client.on("error", this.onClientError);
    client.on("drain", this.onClientDrain);
  }

  /** An exchange is in flight (a request being received or answered). */
  get busy(): boolean {
    return this.phase !== "idle" || this.bodyLeft > 0;
  }

  /** The request body has not fully arrived. */
  get receiving(): boolean {
    return this.bodyLeft > 0;
  }

  /** The runtime's answer has not started (or not finished) arriving. */
  get waitingForRuntime(): boolean {
    return this.phase !== "idle" && this.phase !== "done";
  }

  destroy(): void {
    this.client.destroy();
    this.dropUpstream();
  }

  private onClientData = (chunk: Buffer): void => {
    if (this.bodyLeft > 0) {
      const n = Math.min(chunk.length, this.bodyLeft);
      this.bodyLeft -= n;
      const upstream = this.upstream;
      // A runtime gone meanwhile (its 502 is out) leaves the rest of the body to be thrown away.
      if (upstream !== null && !upstream.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
        this.pausedForUpstream = true;
        this.client.pause();
      }
      if (n === chunk.length) {
        if (this.bodyLeft === 0 && this.phase === "done") this.exchangeDone();
        return;
      }
      chunk = chunk.subarray(n);
      if (this.bodyLeft === 0 && this.phase === "done") {
        this.pending = chunk;
        this.exchangeDone();
        return;
      }
    }
    this.pending = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    if (!this.busy) this.next();
    else if (this.pending.length > MAX_PENDING && !this.pausedForPending) {
      this.pausedForPending = true;
      this.client.pause();
    }
  };

  /** Starts the exchange for the request at the start of `pending`, or hands the connection to Node. */
  private next(): void {
    const buf = this.pending as Buffer;
    this.pending = null;
    const request = readRuntimeRequest(buf, this.remoteAddress, this.server.forRuntime);
    if (request === null) {
      this.handOff(buf);
      return;
    }
    const now = this.server.now;
    this.requests++;
    this.requestStarted = now;
    this.upstreamActive = now;
    this.phase = "head";
    let upstream = this.upstream;
    if (upstream !== null && now >= this.reusableUntil) {
      this.dropUpstream();
      upstream = null;
    }
    if (upstream === null) upstream = this.connect();
    const bodyStart = request.headLength;
    const bodyEnd = Math.min(buf.length, bodyStart + request.bodyLength);
    this.bodyLeft = request.bodyLength - (bodyEnd - bodyStart);
    let writable: boolean;
    if (bodyEnd === bodyStart) writable = upstream.write(request.head, "latin1");
    else if (bodyEnd - bodyStart <= SMALL)
      writable = upstream.write(request.head + buf.toString("latin1", bodyStart, bodyEnd), "latin1");
    else {
      upstream.cork();
      upstream.write(request.head, "latin1");
      writable = upstream.write(buf.subarray(bodyStart, bodyEnd));
      upstream.uncork();
    }
    if (bodyEnd < buf.length) this.pending = buf.subarray(bodyEnd);
    if (!writable && this.bodyLeft > 0) {
      this.pausedForUpstream = true;
      this.client.pause();
    }
  }

  private connect(): net.Socket {
    const upstream = net.connect({
      port: this.server.port,
      host: this.server.host,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (length: number, buffer: Uint8Array) => {
          if (upstream === this.upstream) this.onUpstreamData(buffer as Buffer, length);
          return true;
        },
      },
    });
    upstream.on("end", () => {
      if (upstream === this.upstream) this.onUpstreamEnd();
    });
    upstream.on("close", () => {
      if (upstream === this.upstream) this.onUpstreamGone();
    });
    // The close that follows says what it means for the exchange.
    upstream.on("error", () => {});
    upstream.on("drain", () => {
      if (upstream === this.upstream && this.pausedForUpstream) {
        this.pausedForUpstream = false;
        if (!this.pausedForPending) this.client.resume();
      }
    });
    this.upstream = upstream;
    return upstream;
  }

  private dropUpstream(): void {
    const upstream = this.upstream;
    if (upstream === null) return;
    this.upstream = null;
    this.upstreamRest = null;
    this.upstreamPaused = false;
    upstream.destroy();
  }

  /** `length` bytes the runtime sent, in the shared read buffer `read`. */
  private onUpstreamData(read: Buffer, length: number): void {
    if (this.phase === "idle" || this.phase === "done") {
      // The runtime sent bytes no request asked for: the connection cannot be trusted any more.
      this.dropUpstream();
      return;
    }
    this.upstreamActive = this.server.now;
    let buf = read.subarray(0, length);
    if (this.upstreamRest !== null) {
      buf = Buffer.concat([this.upstreamRest, buf]);
      this.upstreamRest = null;
    }
    let at = 0;
    if (this.phase === "head") {
      const response = readRuntimeResponse(buf, this.server.keepAliveLine(), DEFAULT_REUSE_MS);
      if (response === INCOMPLETE) {
        this.upstreamRest = Buffer.from(buf);
        return;
      }
      if (response === INVALID) {
        this.answerUnavailable();
        return;
      }
      at = response.headLength;
      this.head = response.head;
      this.framing = response.framing;
      this.reuseMs = response.reuseMs;
      if (response.framing === "none") this.finishAnswer();
      else if (response.framing === "chunked") this.phase = "chunk-size";
      else {
        this.left = response.length;
        this.phase = "body";
      }
    }
    if (!this.relayBody(buf, at)) return;
    // (relayBody moves the phase; the compiler keeps the narrowing from the check above.)
    if ((this.phase as Phase) === "done") {
      // Bytes past the end of the answer: the runtime broke the framing, its connection is not reused.
      if (this.upstreamRest !== null) this.reuseMs = 0;
      this.flush();
      this.answerDone();
    } else this.flush();
  }

  /** Relays the body bytes in `buf` from `at`; false when the framing broke (the client is gone then). */
  private relayBody(buf: Buffer, at: number): boolean {
    const end = buf.length;
    while (at < end && this.phase !== "done") {
      switch (this.phase) {
        case "body": {
          if (this.framing === "until-close") {
            this.sendChunk(buf, at, end);
            at = end;
            break;
          }
          const n = Math.min(this.left, end - at);
          this.sendBytes(buf, at, at + n);
          at += n;
          this.left -= n;
          if (this.left === 0) this.finishAnswer();
          break;
        }
        case "chunk-size": {
          const eol = buf.indexOf(CRLF, at);
          if (eol === -1) {
            if (end - at > 1024) return this.breakAnswer();
            this.upstreamRest = Buffer.from(buf.subarray(at));
            return true;
          }
          const line = buf.toString("latin1", at, eol);
          const size = /^([0-9A-Fa-f]{1,12})[\t ]*(?:;.*)?$/.exec(line);
          if (size === null) return this.breakAnswer();
          at = eol + 2;
          this.left = Number.parseInt(size[1], 16);
          this.phase = this.left === 0 ? "trailers" : "chunk-data";
          break;
        }
        case "chunk-data": {
          const n = Math.min(this.left, end - at);
          this.sendChunk(buf, at, at + n);
          at += n;
          this.left -= n;
          if (this.left === 0) this.phase = "chunk-end";
          break;
        }
        case "chunk-end": {
          if (end - at < 2) {
            this.upstreamRest = Buffer.from(buf.subarray(at));
            return true;
          }
          if (buf[at] !== 13 || buf[at + 1] !== 10) return this.breakAnswer();
          at += 2;
          this.phase = "chunk-size";
          break;
        }
        case "trailers": {
          // Trailer fields are dropped, as Node's `ServerResponse` ends the re-chunked body without them.
          const eol = buf.indexOf(CRLF, at);
          if (eol === -1) {
            if (end - at > 16 * 1024) return this.breakAnswer();
            this.upstreamRest = Buffer.from(buf.subarray(at));
            return true;
          }
          if (eol === at) this.finishAnswer();
          at = eol + 2;
          break;
        }
      }
    }
    if (at < end) this.upstreamRest = Buffer.from(buf.subarray(at));
    return true;
  }

  /** Body bytes as they are (the answer has a length). */
  private sendBytes(buf: Buffer, start: number, end: number): void {
    if (this.head !== null) {
      this.out += this.head;
      this.head = null;
    }
    this.queue(buf, start, end);
  }

  /** Body bytes as one chunk of the client's chunked body, as Node writes each `res.write`. */
  private sendChunk(buf: Buffer, start: number, end: number): void {
    if (start === end) return;
    if (this.head !== null) {
      this.out += this.head;
      this.head = null;
    }
    this.out += `${(end - start).toString(16)}\r\n`;
    this.queue(buf, start, end);
    this.out += "\r\n";
  }

  private queue(buf: Buffer, start: number, end: number): void {
    if (end - start <= SMALL) {
      this.out += buf.toString("latin1", start, end);
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.client.cork();
    }
    if (this.out !== "") {
      this.client.write(this.out, "latin1");
      this.out = "";
    }
    this.client.write(Buffer.from(buf.subarray(start, end)));
  }

  private finishAnswer(): void {
    if (this.head !== null) {
      this.out += this.head;
      this.head = null;
    }
    if (this.framing === "chunked" || this.framing === "until-close") this.out += "0\r\n\r\n";
    this.phase = "done";
  }

  /** Writes what the exchange queued for the client; a client that cannot keep up pauses the runtime. */
  private flush(): void {
    const client = this.client;
    if (this.out !== "") {
      client.write(this.out, "latin1");
      this.out = "";
    }
    if (this.corked) {
      this.corked = false;
      client.uncork();
    }
    if (client.writableNeedDrain && this.upstream !== null && !this.upstreamPaused) {
      this.upstreamPaused = true;
      this.upstream.pause();
    }
  }

  private onClientDrain = (): void => {
    if (this.upstreamPaused) {
      this.upstreamPaused = false;
      this.upstream?.resume();
    }
  };

  /** The answer is out: the runtime's connection is kept for the next request or closed. */
  private answerDone(): void {
    if (this.reuseMs > 0 && this.upstreamRest === null) this.reusableUntil = this.server.now + this.reuseMs;
    else this.dropUpstream();
    if (this.bodyLeft === 0) this.exchangeDone();
  }

  private exchangeDone(): void {
    this.phase = "idle";
    this.lastActive = this.server.now;
    if (this.pausedForPending) {
      this.pausedForPending = false;
      if (!this.pausedForUpstream) this.client.resume();
    }
    if (this.pending !== null) this.next();
  }

  /** The runtime could not be reached or did not answer HTTP: the slow path's 502, the connection kept. */
  private answerUnavailable(): void {
    this.dropUpstream();
    this.client.write(unavailableAnswer(UNAVAILABLE, this.server.keepAliveLine()), "latin1");
    this.phase = "done";
    if (this.bodyLeft === 0) this.exchangeDone();
  }

  /** The answer broke after its head: the client's connection is closed, as the slow path's `res.destroy()`. */
  private breakAnswer(): false {
    this.destroy();
    return false;
  }

  private onUpstreamEnd(): void {
    if (this.framing === "until-close" && this.phase === "body") {
      this.finishAnswer();
      this.flush();
      this.reuseMs = 0;
      this.answerDone();
    }
  }

  private onUpstreamGone(): void {
    this.upstream = null;
    this.upstreamRest = null;
    this.upstreamPaused = false;
    if (this.phase === "head") this.answerUnavailable();
    else if (this.phase !== "idle" && this.phase !== "done") this.destroy();
  }

  /** Node's server, the runtime's traffic aside: half-closing aborts what is in flight and ends the socket. */
  private onClientEnd = (): void => {
    this.dropUpstream();
    this.client.end();
  };

  private onClientError = (): void => {
    this.destroy();
  };

  private onClientClose = (): void => {
    this.dropUpstream();
    this.server.forget(this);
  };

  /**
   * A request (or the first one's head) took too long: Node's 408 unless an answer is part-way out (one
   * already whole, sent before the body ended, still gets the 408 after it), then closed.
   */
  timeOut(): void {
    const partWay =
      this.head === null && this.phase !== "idle" && this.phase !== "head" && this.phase !== "done";
    if (this.client.writable && !partWay)
      this.client.write("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
    this.destroy();
  }

  /** The runtime took longer than undici allows: a 502 before its head, a closed connection after. */
  runtimeTimedOut(): void {
    if (this.phase === "head") this.answerUnavailable();
    else this.destroy();
  }

  private handOff(unread: Buffer): void {
    const client = this.client;
    client.off("data", this.onClientData);
    client.off("end", this.onClientEnd);
    client.off("close", this.onClientClose);
    client.off("error", this.onClientError);
    client.off("drain", this.onClientDrain);
    this.dropUpstream();
    this.server.forget(this);
    this.server.handOff(client, unread);
  }
}
