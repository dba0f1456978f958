/**
 * The REAL backend as `npm start` runs it, in-process on loopback: its request listener (the classify hook
 * ahead of the app), the permission bus (LISTEN/NOTIFY) and WebSocket, and — unless `worker: false` — its
 * job worker, so chat jobs really run; no hosting platform. For pages that need more than
 * `useDashboardStack`'s HTTP-only backend (chat, live approvals); the web points its BACKEND_URL here
 * (`withoutBackend` + `webEnv`). The one backend helper (./agent-backend.ts) with these options.
 */
import { type AgentBackend, startAgentBackend } from "./agent-backend";
import { E2E_DATA_ENCRYPTION_KEY, E2E_HMAC_SECRET, E2E_INTERNAL_API_KEY } from "./dashboard";

export type PlatformBackend = AgentBackend;

export function startPlatformBackend(
  env: Record<string, string> = {},
  { worker = true }: { worker?: boolean } = {},
): Promise<PlatformBackend> {
  return startAgentBackend(
    {
      INTERNAL_API_KEY: E2E_INTERNAL_API_KEY,
      HMAC_SECRET: E2E_HMAC_SECRET,
      DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY,
      ...env,
    },
    { permissions: true, permissionSockets: true, hosting: false, worker },
  );
}
