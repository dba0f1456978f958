/**
 * What another agent on the same machine could run on the loopback port an agent's wrapper left free when it
 * stopped or crashed (issue 24): an HTTP server that records every credential it is sent (requests and
 * WebSocket upgrades) and answers as an agent would — `GET /api/identity` with a proof keyed by a password of
 * its own, or with `relayTo` the real wrapper's answer to the same challenge (a relay), and anything else 200
 * with a body shaped like the answers callers expect (a chat completion, a config, lists).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { wrapperIdentityProof } from "../../src/agent-tokens";
import { createOutboundClient } from "../../src/outbound/fetch";
import type { RecordedRequest } from "../fake-upstream";

export interface AgentImpostorOptions {
  /** The port to take (the agent's old one); default any free one. */
  port?: number;
  /** Forward identity challenges to this URL (the real wrapper, elsewhere) and answer what it answers. */
  relayTo?: string;
}

export interface AgentImpostor {
  url: string;
  port: number;
  /** Every HTTP request received, in order (WebSocket upgrades too). */
  requests: RecordedRequest[];
  /** Every `authorization`, `x-admin-token` and `cookie` value received. */
  credentials: string[];
  close(): Promise<void>;
}

const CREDENTIAL_HEADERS = ["authorization", "x-admin-token", "cookie"];

const PLAUSIBLE = {
  ok: true,
  choices: [{ message: { role: "assistant", content: "answered by an impostor" } }],
  config: {},
  sessions: [],
  jobs: [],
  logs: [],
  deleted: 0,
};

const relay = createOutboundClient({ name: "the relayed wrapper", timeoutMs: 5_000 });

/**
 * Answers `GET /api/identity?challenge=` as an agent's wrapper holding `adminPassword` does (at the address
 * the request came in on), for fakes built on `startFakeUpstream`; false for any other request.
 */
export function answerAgentIdentity(
  req: IncomingMessage,
  res: ServerResponse,
  adminPassword: string,
): boolean {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (req.method !== "GET" || url.pathname !== "/api/identity") return false;
  const challenge = url.searchParams.get("challenge") ?? "";
  const listen = { host: req.socket.localAddress ?? "", port: req.socket.localPort ?? 0 };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({ ok: true, ...listen, proof: wrapperIdentityProof(adminPassword, challenge, listen) }),
  );
  return true;
}

export async function startAgentImpostor(options: AgentImpostorOptions = {}): Promise<AgentImpostor> {
  const requests: RecordedRequest[] = [];
  const credentials: string[] = [];
  const record = (req: IncomingMessage, body: Buffer) => {
    requests.push({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body });
    for (const name of CREDENTIAL_HEADERS) {
      const value = req.headers[name];
      if (typeof value === "string") credentials.push(value);
    }
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      record(req, Buffer.concat(chunks));
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname === "/api/identity" && !options.relayTo) {
        answerAgentIdentity(req, res, "the impostor's own password");
        return;
      }
      let status = 200;
      let body: unknown = PLAUSIBLE;
      if (url.pathname === "/api/identity") {
        const answer = await relay.request({ url: `${options.relayTo}${req.url}` }).catch(() => null);
        status = answer?.status ?? 502;
        body = answer?.json() ?? { ok: false, error: "relay failed" };
      }
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });
  server.on("upgrade", (req, socket) => {
    record(req, Buffer.alloc(0));
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    credentials,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
