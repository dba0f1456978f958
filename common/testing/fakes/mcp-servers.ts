/**
 * Loopback MCP servers standing in for the built-in skills' real ones, built with the real MCP server SDK
 * (`McpServer` + `createMcpHandler`, wrapped in node:http) and offering the real tool names and argument
 * schemas: Exa (`web_search_exa`, `web_fetch_exa`), Context7 (`resolve-library-id`, `query-docs`) and
 * grep.app (`searchGitHub`). Answers are made from the arguments, so a test can tell one call from another.
 *
 * By default the server is stateless (modern 2026 traffic per request, 2025 traffic through the SDK's
 * stateless fallback). With `sessions: true` it serves 2025-era traffic sessionfully instead (an
 * `Mcp-Session-Id` per initialize, 404 for a session it does not know), like a server that keeps sessions
 * in memory; `restart()` closes it and listens again on the same port with every session forgotten.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { z } from "zod";

export type FakeMcpSkill = "websearch" | "context7" | "grep_app";

export interface FakeMcpServerOptions {
  /** Serve 2025-era traffic with sessions (see the module comment). */
  sessions?: boolean;
  /** The API key the server requires (Exa: `?exaApiKey=`, Context7: `CONTEXT7_API_KEY` header); unset: none. */
  apiKey?: string;
}

export interface FakeMcpRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The JSON-RPC method of a POST (`initialize`, `tools/call`, …), when it has one. */
  rpcMethod?: string;
}

export interface FakeMcpServer {
  /** The MCP endpoint URL (`/mcp` for Exa and Context7, `/` for grep.app, like the real ones). */
  url: string;
  port: number;
  /** The server's own name and version, as it reports them at initialize. */
  info: { name: string; version: string };
  requests: FakeMcpRequest[];
  /** How many `tools/call` requests reached a tool. */
  toolCalls(): number;
  /** Sessions opened so far (sessions mode). */
  sessionsOpened(): number;
  /** Forgets every session while staying up (a restart behind a load balancer keeping connections). */
  forgetSessions(): Promise<void>;
  /** Closes the server and listens again on the same port; every session is forgotten. */
  restart(): Promise<void>;
  /** Stops answering (connections refused) until `restart()`. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

const SERVER_INFO: Record<FakeMcpSkill, { name: string; version: string; path: string }> = {
  websearch: { name: "exa-search-server", version: "3.1.2", path: "/mcp" },
  context7: { name: "Context7", version: "2.0.1", path: "/mcp" },
  grep_app: { name: "grep-mcp", version: "1.4.0", path: "/" },
};

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const failure = (value: string) => ({ ...text(value), isError: true });

/** The tools of one skill's server, registered on a fresh instance (one per request or session). */
function buildServer(skill: FakeMcpSkill, onCall: () => void): McpServer {
  const info = SERVER_INFO[skill];
  const server = new McpServer({ name: info.name, version: info.version });
  if (skill === "websearch") {
    server.registerTool(
      "web_search_exa",
      {
        description: "Search the web using Exa AI - performs real-time web searches and returns content",
        inputSchema: z.object({
          query: z.string().describe("Websearch query"),
          numResults: z.number().int().min(1).max(100).optional().describe("Number of results (default 8)"),
        }),
      },
      async ({ query, numResults }) => {
        onCall();
        const results = Array.from({ length: numResults ?? 3 }, (_, i) => ({
          title: `${query} — result ${i + 1}`,
          url: `https://example.com/${encodeURIComponent(query)}/${i + 1}`,
        }));
        return text(JSON.stringify({ results }));
      },
    );
    server.registerTool(
      "web_fetch_exa",
      {
        description: "Fetch the content of a web page by URL using Exa",
        inputSchema: z.object({
          url: z.string().describe("URL to fetch"),
          maxCharacters: z.number().int().min(1).optional().describe("Characters of text (default 3000)"),
        }),
      },
      async ({ url, maxCharacters }) => {
        onCall();
        if (!/^https?:\/\//.test(url)) return failure(`Invalid URL: ${url}`);
        return text(`Content of ${url}: ${"x".repeat(maxCharacters ?? 100)}`);
      },
    );
  } else if (skill === "context7") {
    server.registerTool(
      "resolve-library-id",
      {
        description: "Resolves a package/product name to a Context7-compatible library ID",
        inputSchema: z.object({
          query: z.string().optional().describe("The user's question, to rank results"),
          libraryName: z.string().describe("Library name to search for"),
        }),
      },
      async ({ libraryName }) => {
        onCall();
        const slug = libraryName.toLowerCase().replace(/[^a-z0-9]+/g, "-");
        return text(
          `Available Libraries:\n- Title: ${libraryName}\n- Context7-compatible library ID: /${slug}/${slug}`,
        );
      },
    );
    server.registerTool(
      "query-docs",
      {
        description: "Retrieves up-to-date documentation and code examples for a library",
        inputSchema: z.object({
          libraryId: z.string().describe("Exact Context7-compatible library ID (e.g. /vercel/next.js)"),
          query: z.string().describe("The question to answer from the documentation"),
        }),
      },
      async ({ libraryId, query }) => {
        onCall();
        if (!libraryId.startsWith("/")) {
          return failure(`The library "${libraryId}" does not exist. Use resolve-library-id first.`);
        }
        return text(`Documentation of ${libraryId} for "${query}"`);
      },
    );
  } else {
    server.registerTool(
      "searchGitHub",
      {
        description: "Find real-world code examples from over a million public GitHub repositories",
        inputSchema: z.object({
          query: z.string().describe("The literal code pattern to search for"),
          matchCase: z.boolean().optional().default(false),
          matchWholeWords: z.boolean().optional().default(false),
          useRegexp: z.boolean().optional().default(false),
          repo: z.string().optional(),
          path: z.string().optional(),
          language: z.array(z.string()).optional(),
        }),
      },
      async ({ query, useRegexp, language }) => {
        onCall();
        if (useRegexp) {
          try {
            new RegExp(query);
          } catch {
            return failure(`Invalid regular expression: ${query}`);
          }
        }
        const lang = language?.[0] ?? "TypeScript";
        return text(`Repository: example/${lang.toLowerCase()}\nPath: src/index.ts\n  1: ${query}`);
      },
    );
  }
  return server;
}

/** The node request as a web Request (body buffered: MCP messages are small). */
async function toWebRequest(
  req: IncomingMessage,
  res: ServerResponse,
  base: string,
): Promise<{ request: Request; body: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && body.length > 0;
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const request = new Request(new URL(req.url ?? "/", base), {
    method: req.method,
    headers,
    body: hasBody ? body : undefined,
    signal: abort.signal,
  });
  return { request, body };
}

/** Writes a web Response to the node response, streaming its body (SSE included). */
async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

function rpcMethodOf(body: string): string | undefined {
  try {
    const message = JSON.parse(body) as { method?: unknown };
    return typeof message.method === "string" ? message.method : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the loopback MCP server of a built-in skill on 127.0.0.1. */
export async function startFakeMcpServer(
  skill: FakeMcpSkill,
  options: FakeMcpServerOptions = {},
): Promise<FakeMcpServer> {
  const info = SERVER_INFO[skill];
  const requests: FakeMcpRequest[] = [];
  let calls = 0;
  let opened = 0;
  const onCall = () => {
    calls++;
  };
  const factory = () => buildServer(skill, onCall);
  const handler = createMcpHandler(factory, { legacy: options.sessions ? "reject" : "stateless" });
  let sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  /** 2025-era traffic with sessions: initialize opens one; an unknown session id is a 404. */
  const serveSessionful = async (request: Request, body: string): Promise<Response> => {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      const transport = sessions.get(sessionId);
      if (!transport) {
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
          { status: 404 },
        );
      }
      return transport.handleRequest(request);
    }
    if (request.method !== "POST" || rpcMethodOf(body) !== "initialize") {
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: no session id" }, id: null },
        { status: 400 },
      );
    }
    const owner = sessions;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        opened++;
        owner.set(id, transport);
      },
      onsessionclosed: (id) => {
        owner.delete(id);
      },
    });
    await factory().connect(transport);
    return transport.handleRequest(request);
  };

  const authorized = (req: IncomingMessage, url: URL): boolean => {
    if (!options.apiKey) return true;
    if (skill === "websearch") return url.searchParams.get("exaApiKey") === options.apiKey;
    if (skill === "context7") return req.headers.context7_api_key === options.apiKey;
    return true;
  };

  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const next = createServer((req, res) => {
      const base = `http://127.0.0.1:${port}`;
      const url = new URL(req.url ?? "/", base);
      toWebRequest(req, res, base)
        .then(async ({ request, body }) => {
          requests.push({
            method: req.method ?? "GET",
            path: url.pathname,
            headers: req.headers,
            rpcMethod: rpcMethodOf(body),
          });
          if (url.pathname !== info.path) return new Response("not found", { status: 404 });
          if (!authorized(req, url)) return Response.json({ error: "invalid API key" }, { status: 401 });
          if (options.sessions && (await isLegacyRequest(request))) return serveSessionful(request, body);
          return handler.fetch(request);
        })
        .then((response) => writeWebResponse(response, res))
        .catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
          res.end(`fake MCP server failed: ${String(err)}`);
        });
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  const stop = async () => {
    const current = server;
    server = undefined;
    if (!current) return;
    for (const transport of sessions.values()) await transport.close().catch(() => undefined);
    sessions = new Map();
    await new Promise<void>((resolve) => {
      current.closeAllConnections();
      current.close(() => resolve());
    });
  };

  await listen();
  return {
    url: `http://127.0.0.1:${port}${info.path === "/" ? "" : info.path}`,
    port,
    info: { name: info.name, version: info.version },
    requests,
    toolCalls: () => calls,
    sessionsOpened: () => opened,
    async forgetSessions() {
      const forgotten = sessions;
      sessions = new Map();
      for (const transport of forgotten.values()) await transport.close().catch(() => undefined);
    },
    async restart() {
      await stop();
      await listen();
    },
    stop,
    async close() {
      await stop();
      await handler.close();
    },
  };
}

/** One loopback server per built-in skill. */
export async function startFakeMcpServers(
  options: Partial<Record<FakeMcpSkill, FakeMcpServerOptions>> = {},
): Promise<Record<FakeMcpSkill, FakeMcpServer> & { close(): Promise<void> }> {
  const [websearch, context7, grep_app] = await Promise.all([
    startFakeMcpServer("websearch", options.websearch),
    startFakeMcpServer("context7", options.context7),
    startFakeMcpServer("grep_app", options.grep_app),
  ]);
  return {
    websearch,
    context7,
    grep_app,
    close: async () => {
      await Promise.all([websearch.close(), context7.close(), grep_app.close()]);
    },
  };
}
