/**
 * The client of the skills' MCP servers: the MCP client SDK over Streamable HTTP, its requests made by the
 * one outbound client (30 s per exchange, answers capped at 1 MB, redirects refused). One connected client
 * per process and skill, reused by every user and call (no handshake per call). A server that forgot the
 * session (404 on its session id), or closed the kept-alive connection the call went out on (a restart),
 * gets one new handshake and the call is sent again; any other transport failure drops the client, so the
 * next call connects afresh.
 */
import {
  Client,
  ProtocolError,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { CLOSED_WITHOUT_ANSWER, createOutboundClient, OutboundError, outboundFetch } from "@svc/common";
import type { SkillDefinition } from "./catalog";

/** 30 s per call, answers up to 1 MB. */
export const MCP_CALL_TIMEOUT_MS = 30_000;
export const MCP_MAX_RESPONSE_BYTES = 1024 * 1024;

const CLIENT_INFO = { name: "agent-platform", version: "1.0.0" };

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpServerInfo {
  name: string;
  version: string;
  tools: McpToolInfo[];
}

/** The tool's answer: its content blocks, and whether the tool reported an error. */
export interface McpToolResult {
  isError: boolean;
  content: unknown[];
  structuredContent?: Record<string, unknown>;
}

/** The server answered the request with a JSON-RPC error (unknown tool, bad arguments…): the call failed. */
export class McpRequestError extends Error {
  override name = "McpRequestError";
}

/** No usable answer from the server (unreachable, timed out, too large, broken stream…). */
export class McpTransportError extends Error {
  override name = "McpTransportError";
}

interface Connection {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Fails the calls in flight: a call's answer stream broke (the SDK would wait for a reconnection). */
  inflight: Set<(err: unknown) => void>;
}

const outbound = createOutboundClient({ name: "the MCP server", maxRedirects: 0 });

// Next loads this module in several graphs; the pool is the process's, on its global object.
const POOL = Symbol.for("svc.web.skills.mcp-pool");
type WithPool = typeof globalThis & { [POOL]?: Map<string, Promise<Connection>> };
const holder = globalThis as WithPool;
holder[POOL] ??= new Map<string, Promise<Connection>>();
const pool = holder[POOL];

/** One pool entry per skill and endpoint (a changed configuration gets its own client). */
const keyOf = (skill: SkillDefinition) => `${skill.id}\n${skill.url}\n${JSON.stringify(skill.headers)}`;

async function connect(skill: SkillDefinition): Promise<Connection> {
  const inflight = new Set<(err: unknown) => void>();
  const mcpFetch = outboundFetch(outbound, {
    name: "the MCP server",
    timeoutMs: MCP_CALL_TIMEOUT_MS,
    maxResponseBytes: MCP_MAX_RESPONSE_BYTES,
    onStreamFailure: (err, method) => {
      if (method !== "POST") return;
      for (const fail of inflight) fail(err);
    },
  });
  const transport = new StreamableHTTPClientTransport(new URL(skill.url), {
    fetch: mcpFetch,
    requestInit: { headers: skill.headers },
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // The background SSE stream's hiccups are not a call's failure; calls report their own.
  client.onerror = () => undefined;
  try {
    await client.connect(transport, { timeout: MCP_CALL_TIMEOUT_MS });
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  return { client, transport, inflight };
}

function connection(skill: SkillDefinition): Promise<Connection> {
  const key = keyOf(skill);
  let entry = pool.get(key);
  if (!entry) {
    entry = connect(skill);
    pool.set(key, entry);
    // A failed handshake is not kept: the next call tries again.
    entry.catch(() => {
      if (pool.get(key) === entry) pool.delete(key);
    });
  }
  return entry;
}

/** Drops `entry` from the pool (unless another call replaced it already) and closes it. */
async function discard(skill: SkillDefinition, entry: Promise<Connection>): Promise<void> {
  const key = keyOf(skill);
  if (pool.get(key) === entry) pool.delete(key);
  const conn = await entry.catch(() => null);
  await conn?.client.close().catch(() => undefined);
}

const isForgottenSession = (err: unknown, conn: Connection | null) =>
  SdkHttpError.isInstance(err) && err.status === 404 && Boolean(conn?.transport.sessionId);

/**
 * The request went out on a kept-alive connection the server had closed (it restarted, or timed the
 * connection out): nothing was answered, so nothing was done; it is sent again on a new connection.
 */
function isStaleConnection(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof OutboundError && e.reason === "unreachable") {
      return (
        e.detail.startsWith(CLOSED_WITHOUT_ANSWER) ||
        e.socketCode === "ECONNRESET" ||
        e.socketCode === "EPIPE"
      );
    }
  }
  return false;
}

/** The failure as this module's error: the server's JSON-RPC error, or a transport failure. */
function classify(err: unknown): Error {
  if (ProtocolError.isInstance(err)) return new McpRequestError(err.message);
  const message = err instanceof Error ? err.message : String(err);
  return new McpTransportError(message);
}

/**
 * Runs `use` on the skill's pooled client. A forgotten session: one new handshake, then `use` again. Any
 * other failure but a JSON-RPC error drops the client.
 */
async function withClient<T>(skill: SkillDefinition, use: (client: Client) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const entry = connection(skill);
    let conn: Connection | null = null;
    try {
      conn = await entry;
      return await usingConnection(conn, use);
    } catch (err) {
      if (ProtocolError.isInstance(err)) throw classify(err);
      const retry = isForgottenSession(err, conn) || isStaleConnection(err);
      await discard(skill, entry);
      if (retry && attempt === 0) continue;
      throw classify(err);
    }
  }
}

/** `use(client)`, failed at once when the answer stream of a call of this connection breaks. */
async function usingConnection<T>(conn: Connection, use: (client: Client) => Promise<T>): Promise<T> {
  let fail: ((err: unknown) => void) | undefined;
  const broken = new Promise<never>((_, reject) => {
    fail = reject;
  });
  const failNow = fail as (err: unknown) => void;
  conn.inflight.add(failNow);
  try {
    return await Promise.race([use(conn.client), broken]);
  } finally {
    conn.inflight.delete(failNow);
  }
}

/** Connects (or reuses the connection) and lists the server's identity and tools. */
export async function describeMcpServer(skill: SkillDefinition): Promise<McpServerInfo> {
  return withClient(skill, async (client) => {
    const { tools } = await client.listTools(undefined, {
      timeout: MCP_CALL_TIMEOUT_MS,
      maxTotalTimeout: MCP_CALL_TIMEOUT_MS,
      cacheMode: "refresh",
    });
    const server = client.getServerVersion();
    return {
      name: server?.name ?? skill.id,
      version: server?.version ?? "unknown",
      tools: tools.map((t) => ({
        name: t.name,
        description: t.description ?? "",
        inputSchema: t.inputSchema as Record<string, unknown>,
      })),
    };
  });
}

/** Calls the tool with `args` (30 s). */
export async function callMcpTool(
  skill: SkillDefinition,
  toolName: string,
  args: Record<string, unknown>,
): Promise<McpToolResult> {
  return withClient(skill, async (client) => {
    const result = await client.callTool(
      { name: toolName, arguments: args },
      { timeout: MCP_CALL_TIMEOUT_MS, maxTotalTimeout: MCP_CALL_TIMEOUT_MS },
    );
    const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
    return {
      isError: result.isError === true,
      content,
      ...(result.structuredContent
        ? { structuredContent: result.structuredContent as Record<string, unknown> }
        : {}),
    };
  });
}

/** Tests and shutdown: closes every pooled client. */
export async function closeMcpClients(): Promise<void> {
  const entries = [...pool.values()];
  pool.clear();
  await Promise.all(
    entries.map(async (entry) => {
      const conn = await entry.catch(() => null);
      await conn?.client.close().catch(() => undefined);
    }),
  );
}
