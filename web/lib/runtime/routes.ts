/**
 * Route handlers of `/api/runtime/*`, each wrapped by `route({ auth, errorShape: "gateway" }, …)`
 * (../infra/http/errors.ts). These routes relay the backend's answers as they are, so the errors the web
 * adds itself take the backend's shape too, `{error: code, message}` (for example `{error: "no_agent"}`),
 * and a client reads one shape on every runtime path.
 */
import { webContext } from "../infra/context";
import { requireSessionUser } from "../sessions/require";
import { maintenanceBody, readOptionalJson } from "./inputs";
import { assertRuntimeControls, forwardRuntimeOperation, type RuntimeOperation } from "./operations";

/** `GET|POST /api/runtime/<operation>`: forwards to the backend for the caller's newest agent. */
export function runtimeOperation(operation: Exclude<RuntimeOperation, "maintenance">) {
  return async (request: Request): Promise<Response> => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    assertRuntimeControls(ctx, operation);
    return forwardRuntimeOperation(ctx, user, operation);
  };
}

/** `GET /api/runtime/logs?lines=`: the agent's last log lines (1 to 500, default 100). */
export async function runtimeLogs(request: Request): Promise<Response> {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const lines = new URL(request.url).searchParams.get("lines");
  return forwardRuntimeOperation(
    ctx,
    user,
    "logs",
    undefined,
    new URLSearchParams(lines === null ? {} : { lines }),
  );
}

/** `POST /api/runtime/maintenance` `{action}`: `restart` (default) or `factory-reset`; else 400. */
export async function runtimeMaintenance(request: Request): Promise<Response> {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  assertRuntimeControls(ctx, "maintenance");
  const { action } = await readOptionalJson(request, maintenanceBody);
  return forwardRuntimeOperation(ctx, user, "maintenance", { action });
}
