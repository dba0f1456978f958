/**
 * Proof that the agent meant answers at its address, before a secret goes there. Under the local driver an
 * agent's wrapper listens on a loopback port another agent can bind once it is free (the wrapper stopped or
 * crashed), so a connection that is to carry the gateway token or the admin password first asks
 * `GET /api/identity?challenge=<32 random bytes>`, which only the agent's own wrapper can answer (an HMAC keyed
 * with its admin password over the challenge and its address). The secret then travels on that same
 * connection: a TCP connection cannot change hands. Verified connections are kept alive and reused, one pool
 * per (origin, key), so a busy agent costs one extra round trip per new connection, not per call.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { type WrapperListenAddress, wrapperIdentityProof } from "../agent-tokens";
import { safeEqual, sha256Hex } from "../crypto";
import { createOutboundClient, type OutboundAnswer } from "./fetch";
import { OutboundError } from "./guard";

/** Where a wrapper answers the identity challenge. */
export const IDENTITY_PATH = "/api/identity";
/** The longest a proof may take (each caller's own deadline still covers its call). */
const IDENTITY_TIMEOUT_MS = 5_000;
const IDENTITY_MAX_BYTES = 4 * 1024;
/** Pools kept at most; the least recently used is forgotten (its idle connections close on their own). */
const MAX_POOLS = 256;

const identityClient = createOutboundClient({
  name: "the agent",
  maxResponseBytes: IDENTITY_MAX_BYTES,
  timeoutMs: IDENTITY_TIMEOUT_MS,
  headers: { accept: "application/json" },
});

function identityError(origin: URL, why: string): OutboundError {
  const detail = `did not prove it is the agent meant (${why}); nothing was sent to it`;
  return new OutboundError("identity", `the agent at ${origin.host} ${detail}`, {
    upstream: "the agent",
    detail,
  });
}

const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);

function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || (isIP(host) === 4 && host.startsWith("127."));
}

/** A wrapper listening on every interface (in a container, behind a mapped port) states no usable address. */
function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]" || host === "";
}

function portOf(origin: URL): number {
  return Number(origin.port) || (origin.protocol === "https:" ? 443 : 80);
}

/** Why `answer` is not the proof of the wrapper holding `key` at `origin`; null when it is. */
function proofFailure(answer: OutboundAnswer, key: string, challenge: string, origin: URL): string | null {
  if (answer.status !== 200) return `${IDENTITY_PATH} answered HTTP ${answer.status}`;
  const body = answer.json() as Partial<WrapperListenAddress & { proof: unknown }> | undefined;
  const { host, port, proof } = body ?? {};
  if (typeof host !== "string" || !Number.isInteger(port) || typeof proof !== "string")
    return `${IDENTITY_PATH} answered something that is not a proof`;
  const listen = { host, port: port as number };
  if (!safeEqual(proof, wrapperIdentityProof(key, challenge, listen))) return "wrong proof";
  if (isWildcard(host)) return null;
  const sameHost = host === origin.hostname || (isLoopback(host) && isLoopback(origin.hostname));
  if (!sameHost || listen.port !== portOf(origin))
    return `the proof is of a wrapper at ${host}:${listen.port}, not ${origin.host}`;
  return null;
}

/**
 * An HTTP agent of exactly one connection, `socket`, whose own 'free' handling is taken out: the socket,
 * once its exchange is over, is not parked in the carrier's pool but handed over by `proveIdentity`.
 */
function carrierOf(Base: typeof http.Agent, socket: Duplex): http.Agent {
  const carrier = new Base({ keepAlive: true, maxSockets: 1 });
  carrier.createConnection = () => socket;
  carrier.removeAllListeners("free");
  return carrier;
}

/**
 * Proves on `socket` (connected, or connecting, to `origin`) that the wrapper there holds `key`; rejects with
 * an OutboundError (`identity` when it did not) and destroys the socket. Nothing but the challenge is sent.
 * On success the socket is the caller's, free of any HTTP client state, to carry requests or raw bytes.
 */
export async function proveAgentIdentity(
  socket: Duplex,
  baseUrl: string | URL,
  key: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const origin = new URL(new URL(baseUrl).origin);
  const carrier = carrierOf(origin.protocol === "https:" ? https.Agent : http.Agent, socket);
  // The answer's end frees the socket a tick later; a wrapper that closes it instead leaves nothing to reuse.
  let onClose: () => void = () => undefined;
  const freed = new Promise<void>((resolve, reject) => {
    carrier.once("free", () => resolve());
    onClose = () => reject(identityError(origin, "it closed the connection after its proof"));
    socket.once("close", onClose);
  });
  freed.catch(() => undefined);
  const challenge = randomBytes(32).toString("hex");
  try {
    const answer = await identityClient.request({
      url: new URL(`${IDENTITY_PATH}?challenge=${challenge}`, origin),
      agent: carrier,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
    });
    const failure = proofFailure(answer, key, challenge, origin);
    if (failure) throw identityError(origin, failure);
    await freed;
  } catch (err) {
    socket.destroy();
    throw err;
  }
  socket.removeListener("close", onClose);
  // Detaches the carrier's listeners (Node's documented way to take a socket out of an agent).
  socket.emit("agentRemove");
}

type CreateConnection = http.Agent["createConnection"];

/** `createConnection` of an agent whose every connection proves, before its first request, that `key` is there. */
function provenConnection(origin: URL, key: string, create: CreateConnection): CreateConnection {
  return (options, callback) => {
    const socket = create(options) as Duplex;
    proveAgentIdentity(socket, origin, key).then(
      () => callback?.(null, socket),
      (err: Error) => callback?.(err, socket),
    );
    return undefined;
  };
}

class ProvenHttpAgent extends http.Agent {
  constructor(origin: URL, key: string) {
    super({ keepAlive: true });
    this.createConnection = provenConnection(origin, key, super.createConnection.bind(this));
  }
}

class ProvenHttpsAgent extends https.Agent {
  constructor(origin: URL, key: string) {
    super({ keepAlive: true });
    this.createConnection = provenConnection(origin, key, super.createConnection.bind(this));
  }
}

const pools = new Map<string, http.Agent>();

/**
 * The connections to `baseUrl`'s origin on which the wrapper proved it holds `key` (the agent's wrapper
 * admin password): pass it as the request's `agent`, and the request goes out only on such a connection.
 */
export function provenAgentConnections(baseUrl: string | URL, key: string): http.Agent {
  const origin = new URL(new URL(baseUrl).origin);
  const id = `${origin.origin}\n${sha256Hex(key)}`;
  let pool = pools.get(id);
  if (pool) {
    pools.delete(id);
  } else {
    pool =
      origin.protocol === "https:" ? new ProvenHttpsAgent(origin, key) : new ProvenHttpAgent(origin, key);
    if (pools.size >= MAX_POOLS) pools.delete(pools.keys().next().value as string);
  }
  pools.set(id, pool);
  return pool;
}
