/**
 * `ANY /api/runtime/proxy/:agentId/...`: HTTP and WebSocket to the agent's stored URL (its wrapper, which hands
 * what it does not serve to the runtime gateway), the prefix stripped, streaming both ways with backpressure.
 * HTTP takes the internal key + a signed user context owning the agent (or an administrator's); another
 * user's agent is 404. The caller's credentials, cookies and `x-user-*` never reach the agent: its own gateway
 * token is sent instead (the owner can read it anyway). A WebSocket upgrade needs a Bearer: the agent's
 * gateway token, or the internal key with a signed context that may act on the agent (401 without a Bearer,
 * 403 otherwise). The token goes out only on a connection on which the wrapper proved it is that agent
 * (another agent may hold the port of one that stopped); otherwise nothing is sent and the caller gets 502.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import {
  bearerCredential,
  connectionTokens,
  endToEndHeaders,
  type HttpError,
  isEndToEnd,
  OutboundError,
  proveAgentIdentity,
  provenAgentConnections,
  relayUpgrade,
  safeEqual,
  signUserContext,
  type UserContext,
} from "@svc/common";
import type { Database } from "@svc/db";
import type { Agent } from "@svc/db/schema";
import { type NextFunction, type Request, type Response, Router } from "express";
import { findAgent, loadAgentFor } from "../agents/service";
import { type GatewayTokenStore, gatewayTokenStore } from "../agents/tokens";
import { isAdminContext } from "../auth/admin";
import { invalidSignature, signatureRequired } from "../auth/errors";
import { requireInternalKey } from "../auth/internal-key";
import { userContextSecret, verifyUserContext } from "../auth/user-context";
import type { BackendConfig } from "../config";
import { errorAnswer } from "../http/errors";
import {
  agentNotDeployed,
  agentNotProven,
  agentTimeout,
  agentUnreachable,
  bearerRequired,
  noAgentInProxyPath,
  notAgentGatewayToken,
} from "./errors";
import { actorOf } from "./routes";

export const PROXY_PREFIX = "/api/runtime/proxy";
/** How long the agent may take to send its response headers (a started stream may then run on). */
export const PROXY_RESPONSE_TIMEOUT_MS = 30_000;

export type RuntimeProxyConfig = Pick<
  BackendConfig,
  "INTERNAL_API_KEY" | "HMAC_SECRET" | "ADMIN_EMAILS" | "DATA_ENCRYPTION_KEY"
>;

export interface RuntimeProxyDeps {
  db: Database;
  config: RuntimeProxyConfig;
  responseTimeoutMs?: number;
}

/** Headers of ours that must never reach an agent. */
function isPlatformHeader(name: string): boolean {
  return (
    name === "authorization" ||
    name === "cookie" ||
    name.startsWith("x-user-") ||
    name === "x-payments-subscription-id"
  );
}

/** The request headers for the agent: end-to-end ones minus ours, X-Forwarded-*, and the agent's Bearer. */
function upstreamHeaders(req: IncomingMessage, target: URL, bearer: string | null): OutgoingHttpHeaders {
  const named = connectionTokens(req.headers.connection);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "host" || !isEndToEnd(name, named) || isPlatformHeader(name))
      continue;
    if (name === "x-forwarded-for" || name === "x-forwarded-proto" || name === "x-forwarded-host") continue;
    out[name] = value;
  }
  const client = req.socket.remoteAddress ?? "";
  const prior = req.headers["x-forwarded-for"];
  out["x-forwarded-for"] = prior ? `${prior}, ${client}` : client;
  out["x-forwarded-proto"] = req.headers["x-forwarded-proto"] ?? "http";
  if (req.headers.host) out["x-forwarded-host"] = req.headers["x-forwarded-host"] ?? req.headers.host;
  out.host = target.host;
  if (bearer) out.authorization = `Bearer ${bearer}`;
  return out;
}

/** The agent URL joined with the path after the proxy prefix (the agent URL's own path kept as a base). */
export function proxyTarget(agentUrl: string, rest: string): URL {
  const base = new URL(agentUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  const suffix = rest.startsWith("/") ? rest : `/${rest}`;
  return new URL(`${base.protocol}//${base.host}${basePath}${suffix}`);
}

/** The part of a request path after `/api/runtime/proxy/:agentId`, and the agent id; null when not ours. */
export function splitProxyPath(url: string): { agentId: string; rest: string } | null {
  if (!url.startsWith(`${PROXY_PREFIX}/`)) return null;
  const afterPrefix = url.slice(PROXY_PREFIX.length + 1);
  const end = afterPrefix.search(/[/?]/);
  const rawId = end < 0 ? afterPrefix : afterPrefix.slice(0, end);
  if (!rawId) return null;
  let agentId: string;
  try {
    agentId = decodeURIComponent(rawId);
  } catch {
    return null;
  }
  const rest = end < 0 ? "/" : afterPrefix.slice(end);
  return { agentId, rest: rest.startsWith("?") ? `/${rest}` : rest };
}

const keepAlive = {
  http: new http.Agent({ keepAlive: true, maxSockets: 256 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

function sendError(res: Response, err: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(err.status).json({ error: err.code, message: err.message });
}

/** The agent's Bearer and the key its wrapper proves before the Bearer is sent (both null without a token). */
interface AgentCredential {
  bearer: string | null;
  identityKey: string | null;
}

/** The 502 of a failed connection to the agent: unreachable, or reached but not proven to be the agent. */
function upstreamFailure(err: unknown): HttpError {
  if (!(err instanceof OutboundError)) return agentUnreachable((err as NodeJS.ErrnoException).code);
  return err.reason === "identity" ? agentNotProven(err.message) : agentUnreachable(err.socketCode);
}

/** Streams one HTTP exchange to `target`; the caller going away aborts the agent's side. */
function proxyHttp(
  req: Request,
  res: Response,
  target: URL,
  { bearer, identityKey }: AgentCredential,
  timeoutMs: number,
): void {
  const secure = target.protocol === "https:";
  const upstream = (secure ? https : http).request(target, {
    method: req.method,
    headers: upstreamHeaders(req, target, bearer),
    agent: identityKey
      ? provenAgentConnections(target, identityKey)
      : secure
        ? keepAlive.https
        : keepAlive.http,
  });
  const timer = setTimeout(() => {
    upstream.destroy(new Error("timeout"));
    sendError(res, agentTimeout(timeoutMs));
  }, timeoutMs);
  upstream.on("response", (answer) => {
    clearTimeout(timer);
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage ?? "", endToEndHeaders(answer.headers));
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  upstream.on("error", (err) => {
    clearTimeout(timer);
    if (res.writableEnded) return; // the 504 above already answered
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, upstreamFailure(err));
  });
  res.on("close", () => {
    clearTimeout(timer);
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/** HTTP routes of the proxy. Mount them before any body parser: the request body streams through as is. */
export function runtimeProxyRoutes(deps: RuntimeProxyDeps): Router {
  const { db, config } = deps;
  const tokens = gatewayTokenStore(db, config.DATA_ENCRYPTION_KEY);
  const timeoutMs = deps.responseTimeoutMs ?? PROXY_RESPONSE_TIMEOUT_MS;
  const router = Router();
  router.use(
    `${PROXY_PREFIX}/:agentId`,
    (_req: Request, res: Response, next: NextFunction) => {
      res.locals.routeTemplate = `${PROXY_PREFIX}/:agentId/*`; // the metrics' route label
      next();
    },
    requireInternalKey(config.INTERNAL_API_KEY),
    verifyUserContext({ secret: userContextSecret(config), required: true }),
    async (req: Request, res: Response) => {
      const split = splitProxyPath(req.originalUrl);
      if (!split) throw noAgentInProxyPath();
      const agent = await loadAgentFor(db, split.agentId, actorOf(res, config.ADMIN_EMAILS));
      if (!agent.url) throw agentNotDeployed();
      proxyHttp(req, res, proxyTarget(agent.url, split.rest), credentialOf(tokens, agent, null), timeoutMs);
    },
  );
  return router;
}

function refuse(socket: Duplex, err: unknown): void {
  const answer = errorAnswer(err);
  const { status } = answer;
  const body = JSON.stringify(answer.body);
  const reason = http.STATUS_CODES[status] ?? "Error";
  if (socket.writable) {
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The agent's gateway token (`presented`, else its stored one) and its wrapper's admin password. */
function credentialOf(tokens: GatewayTokenStore, agent: Agent, presented: string | null): AgentCredential {
  const bearer = presented ?? tokens.open(agent);
  return { bearer, identityKey: bearer ? tokens.adminPassword(agent.id, bearer) : null };
}

/** Who may open the WebSocket, and the Bearer the agent gets; an HttpError when refused. */
async function authorizeUpgrade(
  req: IncomingMessage,
  agentId: string,
  deps: RuntimeProxyDeps,
  tokens: GatewayTokenStore,
): Promise<{ agent: Agent; credential: AgentCredential }> {
  const { config, db } = deps;
  const presented = bearerCredential(req.headers.authorization);
  if (presented === null) throw bearerRequired();
  if (config.INTERNAL_API_KEY && safeEqual(presented, config.INTERNAL_API_KEY)) {
    const context = verifiedContext(req, userContextSecret(config));
    const actor = { userId: context.userId, isAdmin: isAdminContext(config.ADMIN_EMAILS, context) };
    const agent = await loadAgentFor(db, agentId, actor);
    return { agent, credential: credentialOf(tokens, agent, null) };
  }
  const agent = await findAgent(db, agentId);
  if (!agent || !tokens.matches(agent, presented)) {
    throw notAgentGatewayToken();
  }
  return { agent, credential: credentialOf(tokens, agent, presented) };
}

/** The signed user context of an upgrade request (the signature is required). */
function verifiedContext(req: IncomingMessage, secret: string | undefined): UserContext {
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const context: UserContext = {
    userId: header("x-user-id") ?? "anonymous",
    userEmail: header("x-user-email") ?? "",
    userRole: header("x-user-role") ?? "user",
  };
  if (secret) {
    const signature = header("x-user-signature");
    if (!signature) throw signatureRequired();
    if (!safeEqual(signature, signUserContext(secret, context))) throw invalidSignature();
  }
  return context;
}

/**
 * Pipes an authorized upgrade to the agent: once connected (and, with a Bearer, once the agent's wrapper
 * proved it is the agent on that connection), the request head is rewritten, then bytes flow both ways.
 */
function pipeUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: URL,
  { bearer, identityKey }: AgentCredential,
) {
  const secure = target.protocol === "wss:" || target.protocol === "https:";
  const port = Number(target.port) || (secure ? 443 : 80);
  const upstream = secure
    ? tls.connect({ host: target.hostname, port, servername: target.hostname })
    : net.connect({ host: target.hostname, port });
  let connected = false;
  const destroyBoth = () => {
    socket.destroy();
    upstream.destroy();
  };
  socket.on("error", destroyBoth);
  upstream.on("error", (err) => {
    if (!connected) {
      refuse(socket, upstreamFailure(err));
      upstream.destroy();
      return;
    }
    destroyBoth();
  });
  upstream.once(secure ? "secureConnect" : "connect", async () => {
    if (identityKey) {
      try {
        await proveAgentIdentity(upstream, target, identityKey);
      } catch (err) {
        refuse(socket, upstreamFailure(err));
        return;
      }
    }
    connected = true;
    upstream.setNoDelay(true);
    if (socket instanceof net.Socket) socket.setNoDelay(true);
    const headers = upstreamHeaders(req, target, bearer);
    headers.connection = "Upgrade";
    if (req.headers.upgrade) headers.upgrade = req.headers.upgrade;
    let requestHead = `${req.method} ${target.pathname}${target.search} HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(headers)) {
      for (const one of Array.isArray(value) ? value : [value]) requestHead += `${name}: ${one}\r\n`;
    }
    relayUpgrade(upstream, socket, requestHead, head);
  });
  upstream.on("close", () => socket.destroy());
  socket.on("close", () => upstream.destroy());
}

/**
 * The HTTP server's `upgrade` listener for the proxy. Returns false (and leaves the socket alone) when the
 * path is not under `/api/runtime/proxy/`, so other upgrade handlers can take it.
 */
export function runtimeProxyUpgrade(
  deps: RuntimeProxyDeps,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean {
  const tokens = gatewayTokenStore(deps.db, deps.config.DATA_ENCRYPTION_KEY);
  return (req, socket, head) => {
    const split = splitProxyPath(req.url ?? "/");
    if (!split) return false;
    socket.on("error", () => socket.destroy());
    authorizeUpgrade(req, split.agentId, deps, tokens)
      .then(({ agent, credential }) => {
        if (!agent.url) throw agentNotDeployed();
        pipeUpgrade(req, socket, head, proxyTarget(agent.url, split.rest), credential);
      })
      .catch((err: unknown) => refuse(socket, err));
    return true;
  };
}
