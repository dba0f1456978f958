/**
 * Test fixtures of the watchdog tests: loopback fake agents (wrapper surface: `/healthz`, `/readyz`,
 * `/api/status`, `POST /api/gateway/stop`) whose state the test sets, and a hosting platform double that
 * records what the watchdog asked of it (with the injected clock's time) and changes the fake agents as a
 * platform would. Only test files import this module.
 */
import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import type { Clock } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { pino } from "pino";
import type { HostedService } from "../../hosting/types";
import type { WatchdogPlatform } from "../watcher";

/**
 * What an agent does: `running`; `starting`, `crashed` or `stopped` (wrapper up, gateway not running, as the
 * real wrapper reports them); `down` (the wrapper itself drops every connection).
 */
export type AgentMode = "running" | "starting" | "crashed" | "stopped" | "down";

export interface AgentRequest {
  agentId: string;
  method: string;
  path: string;
  authorization: string | undefined;
  /** Milliseconds since the test's start on the injected clock. */
  at: number;
}

export interface FakeAgents {
  /** Base URL of an agent (its wrapper). */
  urlOf(agentId: string): string;
  setMode(agentId: string, mode: AgentMode): void;
  mode(agentId: string): AgentMode;
  requests: AgentRequest[];
  /** Probe rounds (one per `/api/status` request) an agent received. */
  probes(agentId: string): AgentRequest[];
  close(): Promise<void>;
}

export async function startFakeAgents(clock: Clock, t0: Date, tokenOf: (agentId: string) => string) {
  const modes = new Map<string, AgentMode>();
  const requests: AgentRequest[] = [];
  const server: FakeUpstream = await startFakeUpstream((req, res) => {
    const [, agentId = "", ...rest] = (req.url ?? "/").split("?")[0].split("/");
    const path = `/${rest.join("/")}`;
    requests.push({
      agentId,
      method: req.method ?? "GET",
      path,
      authorization: req.headers.authorization,
      at: clock.now().getTime() - t0.getTime(),
    });
    const mode = modes.get(agentId) ?? "running";
    if (mode === "down") {
      res.socket?.destroy();
      return;
    }
    answer(
      res,
      req.method ?? "GET",
      path,
      mode,
      req.headers.authorization === `Bearer ${tokenOf(agentId)}`,
      () => modes.set(agentId, "stopped"),
    );
  });
  const agents: FakeAgents = {
    urlOf: (agentId) => `${server.url}/${agentId}`,
    setMode: (agentId, mode) => modes.set(agentId, mode),
    mode: (agentId) => modes.get(agentId) ?? "running",
    requests,
    probes: (agentId) => requests.filter((r) => r.agentId === agentId && r.path === "/api/status"),
    close: () => server.close(),
  };
  return agents;
}

function answer(
  res: ServerResponse,
  method: string,
  path: string,
  mode: AgentMode,
  admin: boolean,
  stopGateway: () => void,
): void {
  if (path === "/api/gateway/stop" && method === "POST") {
    if (admin) stopGateway();
    sendJson(
      res,
      admin ? 200 : 401,
      admin ? { ok: true, message: "gateway stopped" } : { ok: false, error: "unauthorized" },
    );
  } else if (path === "/api/status") {
    sendJson(res, 200, {
      state: mode,
      running: mode === "running",
      configured: true,
      uptime: mode === "running" ? 60 : 0,
    });
  } else if (path === "/healthz" || path === "/readyz") {
    // The wrapper proxies these to the runtime: answered only while the gateway runs.
    if (mode === "running") sendJson(res, 200, path === "/healthz" ? { ok: true } : { ready: true });
    else sendJson(res, 502, {});
  } else {
    sendJson(res, 404, { ok: false, error: "not found" });
  }
}

export interface PlatformCall {
  op: "find" | "stop" | "restart";
  serviceId: string;
  at: number;
}

/** The hosting platform as the watchdog sees it: records calls; restart brings the agent into `afterRestart`. */
export function fakePlatform(clock: Clock, t0: Date, agents: FakeAgents) {
  const calls: PlatformCall[] = [];
  const agentOf = (serviceId: string) => serviceId.replace(/^svc_/, "");
  const state = {
    calls,
    /** The mode an agent is in after a restart (default running). */
    afterRestart: "running" as AgentMode,
    /** When set, restart throws this. */
    restartError: null as Error | null,
  };
  const at = () => clock.now().getTime() - t0.getTime();
  const platform: WatchdogPlatform = {
    async find(ref) {
      const serviceId = ref.id ?? "";
      calls.push({ op: "find", serviceId, at: at() });
      if (!serviceId) return null;
      const service: HostedService = {
        id: serviceId,
        name: ref.name,
        url: agents.urlOf(agentOf(serviceId)),
        image: null,
        status: "running",
        metadata: {},
      };
      return service;
    },
    async stop(serviceId) {
      calls.push({ op: "stop", serviceId, at: at() });
      agents.setMode(agentOf(serviceId), "down");
    },
    async restart(serviceId) {
      calls.push({ op: "restart", serviceId, at: at() });
      if (state.restartError) throw state.restartError;
      agents.setMode(agentOf(serviceId), state.afterRestart);
    },
  };
  return { platform, state };
}

/** A pino logger writing JSON lines into memory. */
export function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const logger = pino(
    { level: "info" },
    new Writable({
      write(chunk, _encoding, done) {
        raw.push(chunk.toString());
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  );
  return { logger, lines, raw };
}

/** Polls (real time) until `check` holds; for deliveries that happen beside the watchdog. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
