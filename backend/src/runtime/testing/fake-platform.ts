/**
 * Test double of an external system: a hosting platform whose services are loopback HTTP servers speaking
 * the agent surface the platform uses (wrapper `/api/status` + `/api/config`, runtime `/healthz`, `/readyz`,
 * `/api/memory/reset`, a WebSocket echo on `/ws`, and `/echo` + `/stream` for proxy tests). It records every
 * call and can be told to fail a call, to be unconfigured, or to keep its agents unhealthy.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";
import {
  type CreateServiceInput,
  type HostedService,
  HostingError,
  type HostingPlatform,
  type ServiceLogLine,
  type ServiceStats,
} from "../../hosting/types";

export type PlatformCall = { op: string; id?: string; [field: string]: unknown };

/** One fake agent: what the platform's calls reached, and knobs. */
export class FakeAgent {
  server!: Server;
  url = "";
  running = true;
  healthy = true;
  env: Record<string, string> = {};
  /** The runtime configuration file; null = none yet (GET /api/config → 404). */
  config: Record<string, unknown> | null = null;
  memories = 3;
  requests: Array<{ method: string; path: string; headers: IncomingMessage["headers"]; body: string }> = [];
  wsAuthorizations: Array<string | undefined> = [];
  /** `/held` answers "first\n", then waits for `release()` before "second\n". */
  private held: Promise<void> = Promise.resolve();
  release: () => void = () => undefined;
  private readonly wss = new WebSocketServer({ noServer: true });

  /** From now on `/held` holds its answer after the first line until `release()`. */
  hold(): void {
    this.held = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("upgrade", (req, socket, head) => {
      if (!(req.url ?? "").startsWith("/ws")) {
        socket.destroy();
        return;
      }
      this.wsAuthorizations.push(req.headers.authorization);
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        ws.send(`hello ${req.url}`);
        ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private bearer(req: IncomingMessage, expected: string | undefined): boolean {
    if (!expected) return true;
    return req.headers.authorization === `Bearer ${expected}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0];
      this.requests.push({ method: req.method ?? "GET", path: req.url ?? "/", headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      const up = this.running && this.healthy;
      if (path === "/healthz") return json(up ? 200 : 503, { ok: up });
      if (path === "/readyz") return json(up ? 200 : 503, { ready: up });
      if (path === "/api/status") {
        if (!this.healthy) return json(503, { error: "unavailable" });
        return json(200, {
          state: this.running ? "running" : "stopped",
          running: this.running,
          configured: true,
        });
      }
      if (path === "/api/config") {
        if (!this.bearer(req, this.env.WRAPPER_ADMIN_PASSWORD))
          return json(401, { ok: false, error: "unauthorized" });
        if (req.method === "GET") {
          if (!this.config) return json(404, { ok: false, error: "no configuration file" });
          return json(200, { ok: true, config: this.config });
        }
        this.config = JSON.parse(body);
        return json(200, { ok: true, message: "saved" });
      }
      if (path === "/api/memory/reset" && req.method === "POST") {
        if (!this.bearer(req, this.env.OPENCLAW_GATEWAY_TOKEN)) return json(401, { error: "unauthorized" });
        const deleted = this.memories;
        this.memories = 0;
        return json(200, { ok: true, deleted });
      }
      if (path === "/stream") {
        res.writeHead(200, { "content-type": "text/plain" });
        let sent = 0;
        const timer = setInterval(() => {
          sent++;
          res.write(`chunk ${sent}\n`);
          if (sent === 3) {
            clearInterval(timer);
            res.end();
          }
        }, 20);
        res.on("close", () => clearInterval(timer));
        return;
      }
      if (path === "/held") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("first\n");
        void this.held.then(() => res.end("second\n"));
        return;
      }
      if (path.startsWith("/echo")) {
        return json(200, { method: req.method, url: req.url, headers: req.headers, body });
      }
      json(404, { error: "not found", path });
    });
  }
}

export interface FakeService {
  service: HostedService;
  agent: FakeAgent;
  image: string;
}

/** A hosting platform double (see the file comment). */
export class FakePlatform implements HostingPlatform {
  readonly provider = "railway" as const;
  readonly services = new Map<string, FakeService>();
  readonly calls: PlatformCall[] = [];
  /** Calls that throw: op → error. */
  readonly failures = new Map<string, Error>();
  /** Every call throws HostingError `not_configured` (missing credentials). */
  notConfigured = false;
  /** New services' agents start unhealthy (never pass waitForHealthy). */
  unhealthyAgents = false;
  /** What `stats` reports. */
  statsValue: ServiceStats = { cpuPercent: 12.5, memoryBytes: 104_857_600, memoryLimitBytes: null };
  private sequence = 0;

  private enter(op: string, fields: Omit<PlatformCall, "op"> = {}): void {
    this.calls.push({ op, ...fields });
    if (this.notConfigured) {
      throw new HostingError(
        "not_configured",
        "the hosting platform is not configured (HOSTING_API_KEY is missing)",
      );
    }
    const failure = this.failures.get(op);
    if (failure) throw failure;
  }

  private get(id: string): FakeService {
    const found = this.services.get(id);
    if (!found) throw new HostingError("not_found", `no service ${id}`);
    return found;
  }

  private view(entry: FakeService): HostedService {
    return {
      ...entry.service,
      image: entry.image,
      status: entry.agent.running ? "running" : "stopped",
      url: entry.agent.url,
    };
  }

  /** Adds a service directly (an agent provisioned before the test). */
  async seed(
    name: string,
    options: { image?: string; env?: Record<string, string> } = {},
  ): Promise<FakeService> {
    const agent = new FakeAgent();
    agent.env = options.env ?? {};
    await agent.start();
    const id = `svc_${++this.sequence}`;
    const entry: FakeService = {
      service: { id, name, url: agent.url, image: options.image ?? null, status: "running", metadata: {} },
      agent,
      image: options.image ?? "ghcr.io/openclaw/openclaw:2026.4.11",
    };
    this.services.set(id, entry);
    return entry;
  }

  async ping(): Promise<void> {
    this.enter("ping");
  }
  async list(): Promise<HostedService[]> {
    this.enter("list");
    return [...this.services.values()].map((entry) => this.view(entry));
  }
  async find(ref: { id?: string | null; name: string }): Promise<HostedService | null> {
    this.enter("find", { id: ref.id ?? undefined, name: ref.name });
    if (ref.id && this.services.has(ref.id)) return this.view(this.get(ref.id));
    for (const entry of this.services.values()) if (entry.service.name === ref.name) return this.view(entry);
    return null;
  }
  async create(input: CreateServiceInput): Promise<HostedService> {
    this.enter("create", { name: input.name, image: input.image, env: input.env });
    const entry = await this.seed(input.name, { image: input.image, env: input.env });
    entry.agent.running = false;
    return this.view(entry);
  }
  async setEnv(id: string, env: Record<string, string>): Promise<void> {
    this.enter("setEnv", { id, env });
    this.get(id).agent.env = { ...env };
  }
  async setImage(id: string, image: string): Promise<void> {
    this.enter("setImage", { id, image });
    this.get(id).image = image;
  }
  async deploy(id: string): Promise<HostedService> {
    this.enter("deploy", { id });
    const entry = this.get(id);
    entry.agent.running = true;
    entry.agent.healthy = !this.unhealthyAgents;
    return this.view(entry);
  }
  async restart(id: string): Promise<void> {
    this.enter("restart", { id });
    this.get(id).agent.running = true;
  }
  async stop(id: string): Promise<void> {
    this.enter("stop", { id });
    this.get(id).agent.running = false;
  }
  async remove(id: string): Promise<void> {
    this.enter("remove", { id });
    await this.get(id).agent.close();
    this.services.delete(id);
  }
  async stats(id: string): Promise<ServiceStats> {
    this.enter("stats", { id });
    this.get(id);
    return this.statsValue;
  }
  async logs(id: string, _lines: number): Promise<ServiceLogLine[]> {
    this.enter("logs", { id });
    this.get(id);
    return [];
  }
  async close(): Promise<void> {
    for (const entry of this.services.values()) await entry.agent.close();
    this.services.clear();
  }

  /** Calls of one kind, in order. */
  callsOf(op: string): PlatformCall[] {
    return this.calls.filter((call) => call.op === op);
  }
}
