/**
 * Route handlers of `/api/runtime/*`. These routes relay the backend's answers as they are, so the errors the
 * web adds itself take the backend's shape too, `{error: code, message}` (for example `{error: "no_agent"}`),
 * and a client reads one shape on every runtime path.
 */
import { type WebContext, webContext } from "../context";
import { toErrorResponse } from "../http/errors";
import { assertSameOrigin } from "../http/origin";
import { withRequestMetrics } from "../metrics";
import { requireSessionUser } from "../sessions/require";
import { assertRuntimeControls, forwardRuntimeOperation, type RuntimeOperation } from "./operations";
import { maintenanceBody, readOptionalJson } from "./schema";

/**
 * Wraps a runtime handler: a state-changing request from another site is refused (403, the check every web
 * route makes, ../http/origin.ts); failures in the gateway shape `{error: code, message, ...extra}`
 * (../http/errors.ts), anything unexpected a logged 500. Answers are counted in the request metrics like
 * every route's.
 */
export function runtimeRoute(
  handler: (request: Request, ctx: WebContext) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return withRequestMetrics(async (request: Request) => {
    const ctx = webContext();
    try {
      assertSameOrigin(request, ctx.config.PUBLIC_URL);
      return await handler(request, ctx);
    } catch (err) {
      return toErrorResponse(err, undefined, "gateway");
    }
  });
}

/** `GET|POST /api/runtime/<operation>` (session): forwards to the backend for the user's newest agent. */
export function runtimeOperationRoute(operation: Exclude<RuntimeOperation, "maintenance">) {
  return runtimeRoute(async (request, ctx) => {
    const user = await requireSessionUser(ctx, request);
    assertRuntimeControls(ctx, operation);
    return forwardRuntimeOperation(ctx, user, operation);
  });
}

/** `GET /api/runtime/logs?lines=` (session): the agent's last log lines (1 to 500, default 100). */
export const logsRoute = runtimeRoute(async (request, ctx) => {
  const user = await requireSessionUser(ctx, request);
  const lines = new URL(request.url).searchParams.get("lines");
  return forwardRuntimeOperation(
    ctx,
    user,
    "logs",
    undefined,
    new URLSearchParams(lines === null ? {} : { lines }),
  );
});

/** `POST /api/runtime/maintenance` (session) `{action}`: `restart` (default) or `factory-reset`; else 400. */
export const maintenanceRoute = runtimeRoute(async (request, ctx) => {
  const user = await requireSessionUser(ctx, request);
  assertRuntimeControls(ctx, "maintenance");
  const { action } = await readOptionalJson(request, maintenanceBody);
  return forwardRuntimeOperation(ctx, user, "maintenance", { action });
});
