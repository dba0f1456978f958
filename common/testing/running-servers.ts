/**
 * The one way to test a route's contract over HTTP: the platform's REAL servers as `npm start` runs them —
 * `web/server.ts` (the built Next app behind the project's own HTTP server), `backend/src/server.ts` and
 * `summarizer/src/server.ts` — each a child process on a free loopback port, started once per test file
 * against that file's database. Tests talk to them with a real client (`fetch`, i.e. undici, or another
 * real client such as mppx), so whatever the server, the streaming layer or the client adds or takes away
 * (Content-Length, chunking, a 413 while the body is still being sent) is what the test sees.
 *
 *   const servers = useRunningServers({ backend: {}, web: {} });
 *   it("…", async () => {
 *     const res = await fetch(`${servers.web.url}/api/health`);
 *   });
 *
 * With both a backend and a web, the web's BACKEND_URL is that backend and both share the keys below. A
 * web test makes its users and sessions on the same database with web/lib/infra/testing's `useRunningWebContext`
 * (the system clock, as the server's) and `signedInUser`. `startRunningServer` starts one server alone
 * (web/e2e's `startWebServer` is it, at `http://localhost:<port>` for passkeys).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { buildWebIfNeeded } from "../../scripts/launcher/build";
import { freePort } from "../src/net";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Keys shared by the servers a test starts (tests sign user context and seal tokens with them). */
export const RUNNING_INTERNAL_API_KEY = "running-internal-key-0123456789abcdef";
export const RUNNING_HMAC_SECRET = "running-hmac-secret-0123456789abcdef";
export const RUNNING_SESSION_SECRET = "running-session-secret-0123456789abcdef";
export const RUNNING_DATA_ENCRYPTION_KEY = "ef".repeat(32);

export type ServiceName = "web" | "backend" | "summarizer";

export interface RunningServer {
  readonly service: ServiceName;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly pid: number;
  /** What the process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

interface ServiceSpec {
  cwd: string;
  args: string[];
  portVariable: string;
  health: string;
}

const SERVICES: Record<ServiceName, ServiceSpec> = {
  web: { cwd: "web", args: ["server.ts"], portVariable: "WEB_PORT", health: "/api/health" },
  // The backend's health check has no `/api` prefix.
  backend: { cwd: ".", args: ["backend/src/server.ts"], portVariable: "BACKEND_PORT", health: "/health" },
  summarizer: {
    cwd: ".",
    args: ["summarizer/src/server.ts"],
    portVariable: "SUMMARIZER_PORT",
    health: "/health",
  },
};

/** How long a server may take to answer its health check after it was spawned. */
const START_TIMEOUT_MS = 120_000;
/** How long a first build of the web app may take (2 shared cores); later starts reuse it. */
const BUILD_TIMEOUT_MS = 10 * 60_000;
/** How long a server has to exit after SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

export interface StartOptions {
  /**
   * The host name of `url` (the server still listens on 127.0.0.1 only): `localhost` where a browser needs
   * a domain (passkeys refuse IP addresses). Default `127.0.0.1`.
   */
  host?: "127.0.0.1" | "localhost";
}

/**
 * Starts one real server (building the web app first when its sources changed). The port is ours once the
 * child listens on it: a port found free can be taken before the child binds it, and the child then exits
 * saying so and another port is tried. Ready once it answers its health check with a 2xx (the web also
 * once it printed that it listens on its own port, so another process's answer on that port is not taken
 * for its). The web's PUBLIC_URL is its `url` unless `env` names one; production mode wants an HMAC_SECRET
 * of its own, RUNNING_HMAC_SECRET unless `env` names one.
 */
export async function startRunningServer(
  service: ServiceName,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningServer> {
  if (service === "web") {
    const lines: string[] = [];
    await buildWebIfNeeded(root, (line) => lines.push(line)).catch((err: Error) => {
      throw new Error(`${err.message}:\n${lines.join("\n")}`);
    });
  }
  for (let attempt = 1; ; attempt++) {
    const started = await spawnServer(service, env, options.host ?? "127.0.0.1");
    if (started !== "port taken") return started;
    if (attempt === 3) throw new Error(`${service}: three free ports were taken before it could bind them`);
  }
}

/** Children still running; killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

async function spawnServer(
  service: ServiceName,
  env: Record<string, string>,
  host: string,
): Promise<RunningServer | "port taken"> {
  const spec = SERVICES[service];
  const port = await freePort();
  const url = `http://${host}:${port}`;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", ...spec.args], {
    cwd: join(root, spec.cwd),
    env: {
      ...process.env,
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      [spec.portVariable]: String(port),
      LOG_LEVEL: "warn",
      HMAC_SECRET: RUNNING_HMAC_SECRET,
      ...(service === "web" ? { PUBLIC_URL: url } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let out = "";
  const collect = (chunk: Buffer) => {
    out += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => running.delete(child));
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  const listening = service === "web" ? `web listening on http://127.0.0.1:${port}` : undefined;

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (hasExited()) {
      if (out.includes(`port ${port} on 127.0.0.1 is already in use`)) return "port taken";
      throw new Error(`${service} server exited before it was ready:\n${out}`);
    }
    const healthy =
      (listening === undefined || out.includes(listening)) &&
      (await fetch(`http://127.0.0.1:${port}${spec.health}`).then(
        async (r) => {
          await r.body?.cancel();
          return r.ok;
        },
        () => false,
      ));
    if (healthy && !hasExited()) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      await exited;
      throw new Error(`${service} server did not answer ${spec.health} in time:\n${out}`);
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
  }
  return {
    service,
    url,
    pid: child.pid as number,
    output: () => out,
    async stop() {
      if (hasExited()) return;
      child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
      await exited;
      clearTimeout(force);
    },
  };
}

export interface RunningServersOptions {
  /** Start the backend with these variables (over DATABASE_URL and the shared keys). */
  backend?: Record<string, string>;
  /** Start the web with these variables (over DATABASE_URL, the shared keys, DATA_DIR, BACKEND_URL). */
  web?: Record<string, string>;
  /** Start the summarizer with these variables. */
  summarizer?: Record<string, string>;
}

export interface RunningServers {
  readonly web: RunningServer;
  readonly backend: RunningServer;
  readonly summarizer: RunningServer;
  /** The web's DATA_DIR (a temporary directory of this file's). */
  readonly dataDir: string;
}

/**
 * Starts the servers asked for before the file's tests and stops them after. Call at the top level of a
 * test file; read the servers inside tests (reading one not asked for throws).
 */
export function useRunningServers(options: RunningServersOptions): RunningServers {
  const started: Partial<Record<ServiceName, RunningServer>> = {};
  let dataDir: string | undefined;

  beforeAll(
    async () => {
      dataDir = await mkdtemp(join(tmpdir(), "svc-running-"));
      const database = { DATABASE_URL: process.env.DATABASE_URL as string };
      const keys = {
        INTERNAL_API_KEY: RUNNING_INTERNAL_API_KEY,
        HMAC_SECRET: RUNNING_HMAC_SECRET,
        DATA_ENCRYPTION_KEY: RUNNING_DATA_ENCRYPTION_KEY,
      };
      // Each server is kept as soon as it is up, so afterAll stops it even when another failed to start.
      const keep = async (service: ServiceName, env: Record<string, string>) => {
        started[service] = await startRunningServer(service, env);
      };
      const upstreams = await Promise.allSettled([
        options.backend
          ? keep("backend", { ...database, ...keys, DATA_DIR: dataDir, ...options.backend })
          : undefined,
        options.summarizer ? keep("summarizer", options.summarizer) : undefined,
      ]);
      for (const result of upstreams) if (result.status === "rejected") throw result.reason;
      if (options.web) {
        await keep("web", {
          ...database,
          ...keys,
          SESSION_SECRET: RUNNING_SESSION_SECRET,
          DATA_DIR: dataDir,
          ...(started.backend ? { BACKEND_URL: started.backend.url } : {}),
          ...(started.summarizer ? { SUMMARIZER_URL: started.summarizer.url } : {}),
          ...options.web,
        });
      }
    },
    BUILD_TIMEOUT_MS + START_TIMEOUT_MS * 2,
  );

  afterAll(async () => {
    await Promise.all(Object.values(started).map((server) => server?.stop()));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const get = (service: ServiceName): RunningServer => {
    const server = started[service];
    if (!server)
      throw new Error(`the ${service} server was not asked for or is not started yet (use it inside a test)`);
    return server;
  };
  return {
    get web() {
      return get("web");
    },
    get backend() {
      return get("backend");
    },
    get summarizer() {
      return get("summarizer");
    },
    get dataDir() {
      if (!dataDir)
        throw new Error("the data directory is made before the file's tests (use it inside a test)");
      return dataDir;
    },
  };
}
