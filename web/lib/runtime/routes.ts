/**
 * Route handlers of `/api/runtime/*`. These routes relay the backend's answers as they are, so the errors the
 * web adds itself take the backend's shape too, `{error: code, message}` (for example `{error: "no_agent"}`),
 * and a client reads one shape on every runtime path.
 */
import { type WebContext, webContext } from "../infra/context";
import { toErrorResponse } from "../infra/http/errors";
import { assertSameOrigin } from "../infra/http/origin";
import { withRequestMetrics } from "../infra/metrics";
import { authorizeRequest, declareRouteAuth, type RouteAuth, requireSessionUser } from "../sessions/require";
import { maintenanceBody, readOptionalJson } from "./inputs";
import { assertRuntimeControls, forwardRuntimeOperation, type RuntimeOperation } from "./operations";

/**
 * Wraps a runtime handler: a state-changing request from another site is refused (403, the check every web
 * route makes, ../infra/http/origin.ts), then the caller is authorized as the route declares (`auth`, as for
 * route(): ../sessions/require.ts); failures in the gateway shape `{error: code, message, ...extra}`
 * (../infra/http/errors.ts), anything unexpected a logged 500. Answers are counted in the request metrics like
 * every route's.
 */
export function runtimeRoute(
  options: { auth: RouteAuth },
  handler: (request: Request, ctx: WebContext) => Promise<Response>,
): (request: Request) => Promise<Response> {
  const wrapped = withRequestMetrics(async (request: Request) => {
    const ctx = webContext();
    try {
      assertSameOrigin(request, ctx.config.PUBLIC_URL);
      await authorizeRequest(ctx, request, options.auth);
      return await handler(request, ctx);
    } catch (err) {
      return toErrorResponse(err, undefined, "gateway");
    }
  });
  return declareRouteAuth(wrapped, options.auth);
}

/** `GET|POST /api/runtime/<operation>`: forwards to the backend for the caller's newest agent. */
export function runtimeOperation(operation: Exclude<RuntimeOperation, "maintenance">) {
  return async (request: Request, ctx: WebContext): Promise<Response> => {
    const user = await requireSessionUser(ctx, request);
    assertRuntimeControls(ctx, operation);
    return forwardRuntimeOperation(ctx, user, operation);
  };
}

/** `GET /api/runtime/logs?lines=`: the agent's last log lines (1 to 500, default 100). */
export async function runtimeLogs(request: Request, ctx: WebContext): Promise<Response> {
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
export async function runtimeMaintenance(request: Request, ctx: WebContext): Promise<Response> {
  const user = await requireSessionUser(ctx, request);
  assertRuntimeControls(ctx, "maintenance");
  const { action } = await readOptionalJson(request, maintenanceBody);
  return forwardRuntimeOperation(ctx, user, "maintenance", { action });
}
