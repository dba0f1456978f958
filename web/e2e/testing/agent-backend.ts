/**
 * The REAL backend for the dashboard's e2e tests (backend/src/runtime/testing/local-agents.ts): its HTTP
 * routes, a job worker and, unless told otherwise, the LOCAL hosting driver running real agents. Loaded by
 * URL: the web's typecheck (Next's Node typings) does not compile the backend's process code, the backend's
 * does.
 */
export interface AgentBackend {
  url: string;
  close(): Promise<void>;
}

/** The helper's options the e2e tests use (see `LocalAgentOptions` there). */
export interface AgentBackendOptions {
  permissions?: boolean;
  permissionSockets?: boolean;
  hosting?: boolean;
  worker?: boolean;
}

const MODULE = new URL("../../../backend/src/runtime/testing/local-agents.ts", import.meta.url).href;

/** Starts it on loopback against `DATABASE_URL`; `env` are the backend's variables (keys, secrets). */
export async function startAgentBackend(
  env: Record<string, string>,
  options: AgentBackendOptions = {},
): Promise<AgentBackend> {
  const { startLocalAgentBackend } = (await import(MODULE)) as {
    startLocalAgentBackend: (
      env: Record<string, string>,
      options: AgentBackendOptions,
    ) => Promise<AgentBackend>;
  };
  return startLocalAgentBackend(env, options);
}
