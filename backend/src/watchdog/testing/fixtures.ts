/**
 * Test fixtures of the watchdog tests: loopback fake agents (one instance of the one fake agent runtime,
 * @svc/common/testing `startFakeAgentRuntime` with its wrapper routes, per agent) whose state the test
 * sets, and a hosting platform double that records what the watchdog asked of it (with the injected
 * clock's time) and changes the fake agents as a platform would. Only test files import this module.
 */
import { Writable } from "node:stream";
import type { Clock } from "@svc/common";
import { type FakeAgentRuntime, startFakeAgentRuntime } from "@svc/common/testing";
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
  /** Base URL of an agent (its wrapper), started on first use. */
  urlOf(agentId: string): Promise<string>;
  /** The agent whose base URL `url` is ("" for none). */
  agentAt(url: string): string;
  setMode(agentId: string, mode: AgentMode): void;
  mode(agentId: string): AgentMode;
  /** Every agent's requests, in the order they arrived. */
  requests: AgentRequest[];
  /** Probe rounds (one per `/api/status` request) an agent received. */
  probes(agentId: string): AgentRequest[];
  close(): Promise<void>;
}

/** Puts one fake in `mode`. */
function applyMode(runtime: FakeAgentRuntime, mode: AgentMode): void {
  runtime.down = mode === "down";
  runtime.running = mode === "running";
  runtime.gatewayState = mode === "running" || mode === "down" ? null : mode;
}

function modeOf(runtime: FakeAgentRuntime | undefined): AgentMode {
  if (!runtime || runtime.down) return runtime ? "down" : "running";
  if (runtime.running) return "running";
  return (runtime.gatewayState as AgentMode | null) ?? "stopped";
}

export async function startFakeAgents(
  clock: Clock,
  t0: Date,
  /** The wrapper admin password each agent's fake wrapper accepts. */
  adminPasswordOf: (agentId: string) => string,
): Promise<FakeAgents> {
  const runtimes = new Map<string, Promise<FakeAgentRuntime>>();
  const started = new Map<string, FakeAgentRuntime>();
  const requests: AgentRequest[] = [];
  const start = async (agentId: string) => {
    const runtime = await startFakeAgentRuntime({
      wrapper: true,
      env: { WRAPPER_ADMIN_PASSWORD: adminPasswordOf(agentId) },
      onRequest: (request) =>
        requests.push({
          agentId,
          method: request.method,
          path: request.path.split("?")[0],
          authorization: request.headers.authorization,
          at: clock.now().getTime() - t0.getTime(),
        }),
    });
    started.set(agentId, runtime);
    return runtime;
  };
  const runtimeOf = (agentId: string) => {
    let runtime = runtimes.get(agentId);
    if (!runtime) {
      runtime = start(agentId);
      runtimes.set(agentId, runtime);
    }
    return runtime;
  };
  return {
    urlOf: async (agentId) => (await runtimeOf(agentId)).url,
    agentAt: (url) => [...started].find(([, runtime]) => runtime.url === url.replace(/\/+$/, ""))?.[0] ?? "",
    setMode: (agentId, mode) => {
      const runtime = started.get(agentId);
      if (!runtime) throw new Error(`no fake agent ${agentId}: call urlOf first`);
      applyMode(runtime, mode);
    },
    mode: (agentId) => modeOf(started.get(agentId)),
    requests,
    probes: (agentId) => requests.filter((r) => r.agentId === agentId && r.path === "/api/status"),
    close: async () => {
      await Promise.all([...runtimes.values()].map(async (runtime) => (await runtime).close()));
    },
  };
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
        url: await agents.urlOf(agentOf(serviceId)),
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
