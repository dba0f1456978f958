"use client";

import { AgentPanel } from "./agent-panel";
import { GatewayCard } from "./gateway-card";
import { HeartbeatCard } from "./heartbeat-card";
import { LogsCard } from "./logs-card";
import { MaintenanceCard } from "./maintenance-card";
import { PlatformCard } from "./platform-card";
import { StatsCard } from "./stats-card";
import { useAgentRuntime } from "./use-agent-runtime";

/**
 * The Agent page: deployment and lifecycle first; once the agent exists, its resources, logs, maintenance,
 * heartbeat and gateway view; the platform's services at the side.
 */
export function AgentView() {
  const runtime = useAgentRuntime();
  const { health } = runtime;
  const agentId = health && health.status !== "no_agent" ? health.agentId : undefined;
  return (
    <div className="agent-layout">
      <div className="agent-main">
        <AgentPanel runtime={runtime} />
        {agentId ? (
          <>
            <div className="grid">
              <StatsCard />
              <HeartbeatCard agentId={agentId} />
            </div>
            <LogsCard />
            <GatewayCard />
            <MaintenanceCard controlsEnabled={runtime.controlsEnabled} onDone={runtime.refreshHealth} />
          </>
        ) : null}
      </div>
      <aside className="agent-side" aria-label="Platform status">
        <PlatformCard />
      </aside>
    </div>
  );
}
