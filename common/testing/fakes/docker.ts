/**
 * A loopback stand-in for the Docker Engine API: the container, image and volume calls the docker hosting
 * driver makes, with Docker's status codes (404 no such container or image, 409 name in use, 304 already
 * started or stopped), served on a unix socket or on TCP. Tests read back the requests and the containers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeContainer {
  Id: string;
  Name: string;
  Created: string;
  Config: {
    Image: string;
    Env: string[];
    Labels: Record<string, string>;
    ExposedPorts?: Record<string, unknown>;
  };
  HostConfig: Record<string, unknown>;
  State: { Status: string; Running: boolean; ExitCode: number; OOMKilled: boolean; StartedAt: string };
  NetworkSettings: { Ports: Record<string, { HostIp: string; HostPort: string }[] | null> };
}

export interface FakeDockerRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface FakeDocker {
  /** `unix:///…/docker.sock` or `tcp://127.0.0.1:<port>`: what DOCKER_HOST would be. */
  dockerHost: string;
  requests: FakeDockerRequest[];
  containers: Map<string, FakeContainer>;
  images: Set<string>;
  volumes: Set<string>;
  /** Image references whose pull fails (reported inside the progress stream, as Docker does). */
  unpullable: Set<string>;
  /** The next stats answer of every container. */
  setStats(sample: Record<string, unknown>): void;
  /** The raw multiplexed log stream of a container. */
  setLogs(containerName: string, stream: Buffer): void;
  /** The container process exits on its own with `exitCode`. */
  exit(containerName: string, exitCode: number, oomKilled?: boolean): void;
  byName(name: string): FakeContainer | undefined;
  close(): Promise<void>;
}

/** Builds one multiplexed log frame (type 1 stdout, 2 stderr). */
export function logFrame(stream: "stdout" | "stderr", text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const header = Buffer.alloc(8);
  header[0] = stream === "stdout" ? 1 : 2;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

function send(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json" });
  res.end(text);
}

export async function startFakeDocker(options: { socketPath?: string } = {}): Promise<FakeDocker> {
  const requests: FakeDockerRequest[] = [];
  const containers = new Map<string, FakeContainer>();
  const images = new Set<string>();
  const volumes = new Set<string>();
  const unpullable = new Set<string>();
  const logs = new Map<string, Buffer>();
  let stats: Record<string, unknown> = {};
  let sequence = 0;
  let nextHostPort = 49_000;

  const byName = (name: string) => [...containers.values()].find((c) => c.Name === `/${name}`);
  const resolve = (ref: string) =>
    containers.get(ref) ?? byName(ref) ?? [...containers.values()].find((c) => c.Id.startsWith(ref));
  const noSuchContainer = (res: ServerResponse, ref: string) =>
    send(res, 404, { message: `No such container: ${ref}` });

  const start = (c: FakeContainer) => {
    c.State = { ...c.State, Status: "running", Running: true, ExitCode: 0, OOMKilled: false };
    c.State.StartedAt = new Date().toISOString();
    const bindings = (c.HostConfig.PortBindings ?? {}) as Record<
      string,
      { HostIp: string; HostPort: string }[]
    >;
    c.NetworkSettings.Ports = Object.fromEntries(
      Object.entries(bindings).map(([port, list]) => [
        port,
        list.map((b) => ({ HostIp: b.HostIp || "0.0.0.0", HostPort: b.HostPort || String(nextHostPort++) })),
      ]),
    );
  };
  const stop = (c: FakeContainer, exitCode: number) => {
    c.State = { ...c.State, Status: "exited", Running: false, ExitCode: exitCode };
    c.NetworkSettings.Ports = {};
  };

  const handle = (req: IncomingMessage, res: ServerResponse, rawBody: Buffer) => {
    const url = new URL(req.url ?? "/", "http://docker");
    const path = url.pathname.replace(/^\/v\d+\.\d+/, "");
    let body: unknown;
    try {
      body = rawBody.length > 0 ? JSON.parse(rawBody.toString("utf8")) : undefined;
    } catch {
      return send(res, 400, { message: "invalid JSON" });
    }
    const method = req.method ?? "GET";
    requests.push({ method, path, query: url.searchParams, body });
    const q = url.searchParams;

    if (method === "GET" && path === "/_ping") return send(res, 200, "OK");
    let m = /^\/images\/(.+)\/json$/.exec(path);
    if (method === "GET" && m) {
      const ref = decodeURIComponent(m[1]);
      return images.has(ref)
        ? send(res, 200, { Id: `sha256:${ref}` })
        : send(res, 404, { message: `No such image: ${ref}` });
    }
    if (method === "POST" && path === "/images/create") {
      const ref = q.get("fromImage") ?? "";
      res.writeHead(200, { "content-type": "application/json" });
      if (unpullable.has(ref)) {
        res.end(
          `{"status":"Pulling from ${ref}"}\n{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}\n`,
        );
        return;
      }
      images.add(ref);
      res.end(`{"status":"Pulling from ${ref}"}\n{"status":"Downloaded newer image for ${ref}"}\n`);
      return;
    }
    if (method === "POST" && path === "/containers/create") {
      const name = q.get("name") ?? "";
      const spec = body as Record<string, unknown>;
      if (name && byName(name))
        return send(res, 409, { message: `Conflict. The container name "/${name}" is already in use` });
      if (!images.has(String(spec.Image))) return send(res, 404, { message: `No such image: ${spec.Image}` });
      sequence += 1;
      const id = `${sequence.toString(16).padStart(8, "0")}${"c".repeat(56)}`;
      const hostConfig = (spec.HostConfig ?? {}) as Record<string, unknown>;
      for (const mount of (hostConfig.Mounts ?? []) as { Type: string; Source: string }[]) {
        if (mount.Type === "volume") volumes.add(mount.Source);
      }
      containers.set(id, {
        Id: id,
        Name: `/${name || id.slice(0, 12)}`,
        Created: new Date().toISOString(),
        Config: {
          Image: String(spec.Image),
          // Like Docker, the image's own ENV is part of the container's.
          Env: [
            "PATH=/usr/local/bin:/usr/bin:/bin",
            "NODE_VERSION=20.0.0",
            ...((spec.Env ?? []) as string[]),
          ],
          Labels: (spec.Labels ?? {}) as Record<string, string>,
          ExposedPorts: spec.ExposedPorts as Record<string, unknown>,
        },
        HostConfig: hostConfig,
        State: {
          Status: "created",
          Running: false,
          ExitCode: 0,
          OOMKilled: false,
          StartedAt: "0001-01-01T00:00:00Z",
        },
        NetworkSettings: { Ports: {} },
      });
      return send(res, 201, { Id: id, Warnings: [] });
    }
    if (method === "GET" && path === "/containers/json") {
      const filters = JSON.parse(q.get("filters") ?? "{}") as { label?: string[] };
      const list = [...containers.values()]
        .filter((c) => q.get("all") === "1" || c.State.Running)
        .filter((c) =>
          (filters.label ?? []).every((f) => {
            const [key, value] = f.split("=");
            return key in c.Config.Labels && (value === undefined || c.Config.Labels[key] === value);
          }),
        )
        .map((c) => ({
          Id: c.Id,
          Names: [c.Name],
          Image: c.Config.Image,
          State: c.State.Status,
          Status: c.State.Running ? "Up 1 second" : `Exited (${c.State.ExitCode}) 1 second ago`,
          Labels: c.Config.Labels,
          Ports: Object.entries(c.NetworkSettings.Ports).flatMap(([port, list]) =>
            (list ?? []).map((b) => ({
              IP: b.HostIp,
              PrivatePort: Number(port.split("/")[0]),
              PublicPort: Number(b.HostPort),
              Type: port.split("/")[1],
            })),
          ),
        }));
      return send(res, 200, list);
    }
    m = /^\/containers\/([^/]+)(?:\/(json|start|stop|restart|rename|stats|logs))?$/.exec(path);
    if (m) {
      const ref = decodeURIComponent(m[1]);
      const c = resolve(ref);
      if (!c) return noSuchContainer(res, ref);
      const action = m[2];
      if (method === "GET" && action === "json") return send(res, 200, c);
      if (method === "POST" && action === "start") {
        if (c.State.Running) return send(res, 304);
        start(c);
        return send(res, 204);
      }
      if (method === "POST" && action === "stop") {
        if (!c.State.Running) return send(res, 304);
        stop(c, 0);
        return send(res, 204);
      }
      if (method === "POST" && action === "restart") {
        start(c);
        return send(res, 204);
      }
      if (method === "POST" && action === "rename") {
        const name = q.get("name") ?? "";
        if (byName(name)) return send(res, 409, { message: `name ${name} in use` });
        c.Name = `/${name}`;
        return send(res, 204);
      }
      if (method === "GET" && action === "stats") {
        if (q.get("stream") !== "false")
          return send(res, 400, { message: "the fake only answers stream=false" });
        return send(
          res,
          200,
          c.State.Running ? stats : { cpu_stats: {}, precpu_stats: {}, memory_stats: {} },
        );
      }
      if (method === "GET" && action === "logs") {
        res.writeHead(200, { "content-type": "application/vnd.docker.multiplexed-stream" });
        res.end(logs.get(c.Name.slice(1)) ?? Buffer.alloc(0));
        return;
      }
      if (method === "DELETE" && !action) {
        if (c.State.Running && q.get("force") !== "1")
          return send(res, 409, { message: "cannot remove a running container" });
        containers.delete(c.Id);
        return send(res, 204);
      }
    }
    m = /^\/volumes\/([^/]+)$/.exec(path);
    if (method === "DELETE" && m) {
      const name = decodeURIComponent(m[1]);
      if (!volumes.delete(name)) return send(res, 404, { message: `get ${name}: no such volume` });
      return send(res, 204);
    }
    return send(res, 404, { message: `page not found: ${method} ${path}` });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    if (options.socketPath) server.listen(options.socketPath, () => resolveListen());
    else server.listen(0, "127.0.0.1", () => resolveListen());
  });
  const dockerHost = options.socketPath
    ? `unix://${options.socketPath}`
    : `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    dockerHost,
    requests,
    containers,
    images,
    volumes,
    unpullable,
    setStats(sample) {
      stats = sample;
    },
    setLogs(name, stream) {
      logs.set(name, stream);
    },
    exit(name, exitCode, oomKilled = false) {
      const c = byName(name);
      if (!c) throw new Error(`no container ${name}`);
      stop(c, exitCode);
      c.State.OOMKilled = oomKilled;
    },
    byName,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
