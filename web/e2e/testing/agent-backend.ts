/**
 * The REAL backend with real local agents for the dashboard's e2e tests: its HTTP routes, a job worker and
 * the LOCAL hosting driver (backend/src/runtime/testing/local-agents.ts). Loaded by URL: the web's
 * typecheck (Next's Node typings) does not compile the backend's process code, the backend's does.
 */
export interface AgentBackend {
  url: string;
  close(): Promise<void>;
}

const MODULE = new URL("../../../backend/src/runtime/testing/local-agents.ts", import.meta.url).href;

/** Starts it on loopback against `DATABASE_URL`; `env` are the backend's variables (keys, secrets). */
export async function startAgentBackend(env: Record<string, string>): Promise<AgentBackend> {
  const { startLocalAgentBackend } = (await import(MODULE)) as {
    startLocalAgentBackend: (env: Record<string, string>) => Promise<AgentBackend>;
  };
  return startLocalAgentBackend(env);
}
