/**
 * A small client of the Docker Engine API over `node:http`: a unix socket (`unix:///var/run/docker.sock`)
 * or TCP (`tcp://host:2375`, `http://…`, `https://…`), unversioned paths (the daemon's own API version).
 * Plus the two pieces of Docker's wire formats the driver needs: the 8-byte frame headers of multiplexed
 * logs, and the CPU percent of a stats sample (the formula of `docker stats`, against `precpu_stats`).
 */
import http from "node:http";
import https from "node:https";
import { HostingError, type ServiceLogLine } from "./types";

export interface DockerEndpoint {
  socketPath?: string;
  protocol: "http:" | "https:";
  host: string;
  port: number;
}

/** Parses DOCKER_HOST; anything else than unix, tcp, http or https is a configuration error. */
export function parseDockerHost(value: string): DockerEndpoint {
  if (value.startsWith("unix://")) {
    const socketPath = value.slice("unix://".length);
    if (!socketPath.startsWith("/"))
      throw new HostingError("not_configured", `DOCKER_HOST ${value}: the socket path must be absolute`);
    return { socketPath, protocol: "http:", host: "docker", port: 80 };
  }
  let url: URL;
  try {
    url = new URL(value.replace(/^tcp:\/\//, "http://"));
  } catch {
    throw new HostingError(
      "not_configured",
      `DOCKER_HOST ${value} is not unix://, tcp://, http:// or https://`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new HostingError(
      "not_configured",
      `DOCKER_HOST ${value} is not unix://, tcp://, http:// or https://`,
    );
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 2376 : 2375;
  return { protocol: url.protocol, host: url.hostname, port };
}

/** An answer of the Docker API that is an error (status ≥ 400); `status` tells 404 and 409 apart. */
export class DockerApiError extends HostingError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(status === 404 ? "not_found" : "platform", message);
  }
}

export interface DockerResponse {
  status: number;
  body: Buffer;
}

export interface DockerRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  timeoutMs?: number;
}

export class DockerApi {
  private readonly agent: http.Agent;

  constructor(
    private readonly endpoint: DockerEndpoint,
    private readonly label: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.agent =
      endpoint.protocol === "https:"
        ? new https.Agent({ keepAlive: true })
        : new http.Agent({ keepAlive: true });
  }

  request(method: string, path: string, options: DockerRequest = {}): Promise<DockerResponse> {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) search.set(key, String(value));
    }
    const fullPath = search.size > 0 ? `${path}?${search}` : path;
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const transport = this.endpoint.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(
        {
          method,
          path: fullPath,
          agent: this.agent,
          ...(this.endpoint.socketPath
            ? { socketPath: this.endpoint.socketPath }
            : { host: this.endpoint.host, port: this.endpoint.port }),
          headers: {
            host: this.endpoint.socketPath ? "docker" : `${this.endpoint.host}:${this.endpoint.port}`,
            ...(payload ? { "content-type": "application/json", "content-length": payload.length } : {}),
          },
          signal: AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on("error", reject);
        },
      );
      req.on("error", (err: NodeJS.ErrnoException) => {
        const why =
          err.name === "TimeoutError" || err.name === "AbortError" ? "timeout" : (err.code ?? err.message);
        reject(new HostingError("platform", `Docker Engine API at ${this.label} unreachable: ${why}`));
      });
      req.end(payload);
    });
  }

  /** Sends the request and parses JSON; a status ≥ 400 throws DockerApiError with Docker's message. */
  async json<T>(method: string, path: string, options: DockerRequest = {}): Promise<T> {
    const res = await this.request(method, path, options);
    if (res.status >= 400)
      throw new DockerApiError(res.status, `Docker ${method} ${path}: ${errorMessage(res)}`);
    if (res.body.length === 0) return undefined as T;
    try {
      return JSON.parse(res.body.toString("utf8")) as T;
    } catch {
      return res.body.toString("utf8") as T;
    }
  }

  /** Like `json` but also accepts `accepted` statuses (e.g. 304 "already stopped"). */
  async expect(
    method: string,
    path: string,
    accepted: number[],
    options: DockerRequest = {},
  ): Promise<number> {
    const res = await this.request(method, path, options);
    if (res.status >= 400 && !accepted.includes(res.status))
      throw new DockerApiError(res.status, `Docker ${method} ${path}: ${errorMessage(res)}`);
    return res.status;
  }

  close(): void {
    this.agent.destroy();
  }
}

function errorMessage(res: DockerResponse): string {
  const text = res.body.toString("utf8");
  try {
    const message = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof message === "string") return message;
  } catch {}
  return text.slice(0, 200) || `HTTP ${res.status}`;
}

/**
 * Splits a multiplexed log stream (Tty false): frames of an 8-byte header — stream type (1 stdout,
 * 2 stderr), three zero bytes, payload size as uint32 big-endian — then the payload. With `timestamps=1`
 * every line starts with its RFC 3339 time and a space.
 */
export function demultiplexLogs(buffer: Buffer): ServiceLogLine[] {
  const lines: ServiceLogLine[] = [];
  const partial: Record<"stdout" | "stderr", string> = { stdout: "", stderr: "" };
  const emit = (stream: "stdout" | "stderr", text: string) => {
    const match = /^(\d{4}-\d{2}-\d{2}T\S+)\s(.*)$/s.exec(text);
    const ts = match && !Number.isNaN(Date.parse(match[1])) ? new Date(match[1]).toISOString() : "";
    lines.push({ ts, stream, line: match ? match[2] : text });
  };
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const type = buffer[offset];
    const size = buffer.readUInt32BE(offset + 4);
    const payload = buffer.subarray(offset + 8, Math.min(offset + 8 + size, buffer.length)).toString("utf8");
    offset += 8 + size;
    const stream = type === 2 ? "stderr" : "stdout";
    const parts = (partial[stream] + payload).split("\n");
    partial[stream] = parts.pop() ?? "";
    for (const part of parts) emit(stream, part.replace(/\r$/, ""));
  }
  for (const stream of ["stdout", "stderr"] as const) if (partial[stream]) emit(stream, partial[stream]);
  return lines;
}

interface CpuStats {
  cpu_usage?: { total_usage?: number; percpu_usage?: number[] };
  system_cpu_usage?: number;
  online_cpus?: number;
}

export interface DockerStatsSample {
  cpu_stats?: CpuStats;
  precpu_stats?: CpuStats;
  memory_stats?: {
    usage?: number;
    limit?: number;
    stats?: { total_inactive_file?: number; inactive_file?: number; cache?: number };
  };
}

/** `docker stats`' CPU percent: container CPU delta over system CPU delta, times online CPUs, × 100. */
export function dockerCpuPercent(sample: DockerStatsSample): number | null {
  const cpu = sample.cpu_stats;
  const pre = sample.precpu_stats;
  if (cpu?.cpu_usage?.total_usage === undefined || cpu.system_cpu_usage === undefined) return null;
  const cpuDelta = cpu.cpu_usage.total_usage - (pre?.cpu_usage?.total_usage ?? 0);
  const systemDelta = cpu.system_cpu_usage - (pre?.system_cpu_usage ?? 0);
  if (systemDelta <= 0 || cpuDelta < 0) return null;
  const cpus = cpu.online_cpus || cpu.cpu_usage.percpu_usage?.length || 1;
  return Math.round((cpuDelta / systemDelta) * cpus * 100 * 100) / 100;
}

/** Memory in use as `docker stats` shows it: usage without the reclaimable page cache. */
export function dockerMemoryUsage(sample: DockerStatsSample): number | null {
  const memory = sample.memory_stats;
  if (memory?.usage === undefined) return null;
  const cache = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? memory.stats?.cache ?? 0;
  return cache < memory.usage ? memory.usage - cache : memory.usage;
}
