/**
 * Route handlers of `/api/runtime/*`. These routes relay the backend's answers as they are, so the errors the
 * web adds itself take the backend's shape too, `{error: code, message}` (for example `{error: "no_agent"}`),
 * and a client reads one shape on every runtime path.
 */
import { isHttpError, randomId } from "@svc/common";
import { type WebContext, webContext } from "../context";
import { assertSameOrigin } from "../http/origin";
import { requireSessionUser } from "../sessions/require";
import { assertRuntimeControls, forwardRuntimeOperation, type RuntimeOperation } from "./operations";
import { maintenanceBody, readOptionalJson } from "./schema";

/**
 * Wraps a runtime handler: a state-changing request from another site is refused (403, the check every web
 * route makes, ../http/origin.ts); HttpError → `{error: code, message, ...extra}`; anything else a logged
 * 500.
 */
export function runtimeRoute(
  handler: (request: Request, ctx: WebContext) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const ctx = webContext();
    try {
      assertSameOrigin(request, ctx.config.PUBLIC_URL);
      return await handler(request, ctx);
    } catch (err) {
      if (isHttpError(err)) {
        return Response.json({ error: err.code, message: err.message, ...err.extra }, { status: err.status });
      }
      const requestId = randomId(12);
      ctx.logger.error({ err, requestId }, "unhandled error");
      return Response.json(
        { error: "internal", message: "internal server error", requestId },
        { status: 500 },
      );
    }
  };
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
