/**
 * The web server: Next.js behind a plain node:http server, so route handlers can know the client's
 * socket address (Next route handlers have no access to the socket). Every request gets the header
 * `x-svc-client-ip` set to the remote address, and `x-svc-request-path` to the page asked for (so sign-in
 * can return to it), replacing whatever a client sent.
 * Every answer carries the security headers of lib/infra/http/security-headers.ts (a Content-Security-Policy with
 * a fresh script nonce, frame-ancestors 'none', X-Frame-Options, Referrer-Policy). WebSocket upgrades of
 * `/ws/permissions` are relayed to the backend (lib/permissions/socket-relay.ts), which refuses the
 * cookie-authenticated ones from another site's pages (`Origin` other than `PUBLIC_URL`'s). Unknown
 * `/api/` paths and methods a route does not export get JSON 404/405 (lib/infra/http/api-fallback.ts). A
 * route's Content-Length, which Next drops, is sent (lib/infra/http/content-length.ts). The v1 gateway and the
 * payment-session reads are served ahead of Next by their route files' own handlers (lib/infra/http/ahead-of-next.ts,
 * GATEWAY_AHEAD_OF_NEXT): the same answers without Next's routing, which costs more than such a call.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { drainUnreadBodies, exitOnStartupError, listen } from "@svc/common";
import next from "next";
import * as gatewayRoute from "./app/api/v1/gateway/route";
import * as walletSessionRoute from "./app/api/wallet/sessions/[id]/route";
import { loadWebConfig } from "./lib/infra/config";
import { setStartedWebConfig } from "./lib/infra/context";
import { routesAheadOfNext, serveAheadOfNext } from "./lib/infra/http/ahead-of-next";
import {
  allowOfRoute,
  apiRouteMatcher,
  builtApiRoutes,
  withApiFallback,
} from "./lib/infra/http/api-fallback";
import { CLIENT_IP_HEADER } from "./lib/infra/http/client-ip";
import { sendDeclaredContentLength } from "./lib/infra/http/content-length";
import { REQUEST_PATH_HEADER, requestedPagePath } from "./lib/infra/http/return-path";
import { newNonce, securityHeaders } from "./lib/infra/http/security-headers";
import { permissionSocketRelay } from "./lib/permissions/socket-relay";

try {
  // The one parse of the web's configuration, before anything listens; route handlers use this one.
  const env = loadWebConfig();
  setStartedWebConfig(env);
  const dir = fileURLToPath(new URL(".", import.meta.url));
  const app = next({ dev: false, dir, hostname: env.HOST, port: env.WEB_PORT });
  await app.prepare();
  const handle = withApiFallback(app.getRequestHandler(), {
    routeOf: apiRouteMatcher(builtApiRoutes(dir)),
    allowOf: allowOfRoute(() => loopbackUrl(server.address() as AddressInfo)),
  });
  const aheadOfNext = routesAheadOfNext(
    env.GATEWAY_AHEAD_OF_NEXT
      ? [
          { path: "/api/v1/gateway", module: gatewayRoute },
          { path: "/api/wallet/sessions/[id]", module: walletSessionRoute },
        ]
      : [],
  );
  // The origin of the requests handlers get ahead of Next (Next's is its own address too).
  let origin = "";
  // A body the web will not read (over its limit) is read and thrown away, bounded, so the client reads the 413.
  const server = createServer(
    drainUnreadBodies((req, res) => {
      req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? "";
      req.headers[REQUEST_PATH_HEADER] = requestedPagePath(req.url);
      // The answer's security headers; the request carries the same policy so Next reads its script nonce
      // (a client's own Content-Security-Policy header is replaced, never used).
      const headers = securityHeaders(newNonce(), env.PUBLIC_URL);
      req.headers["content-security-policy"] = headers["content-security-policy"];
      delete req.headers["content-security-policy-report-only"];
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      sendDeclaredContentLength(res);
      const matched = aheadOfNext(req.method, req.url);
      const served = matched ? serveAheadOfNext(req, res, matched, origin) : handle(req, res);
      served.catch((err: unknown) => {
        process.stderr.write(`web: request failed: ${String(err)}\n`);
        // A body already under way cannot turn into an error: the client sees it cut off, not complete.
        if (res.headersSent) return void res.destroy();
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "internal server error", code: "internal" }));
      });
    }),
  );
  // The permission WebSocket on the web's origin, relayed to the backend; no other upgrade is served.
  const relayPermissions = permissionSocketRelay(env.BACKEND_URL, env.PUBLIC_URL);
  server.on("upgrade", (req, socket, head) => {
    if (!relayPermissions(req, socket, head)) socket.destroy();
  });
  await listen(server, env.WEB_PORT, env.HOST);
  origin = loopbackUrl(server.address() as AddressInfo).origin;
  process.stdout.write(`web listening on http://${env.HOST}:${env.WEB_PORT}\n`);
  const stop = () => {
    server.close();
    server.closeIdleConnections();
    void app.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
} catch (err) {
  exitOnStartupError("web", err);
}

/** This server's own address, reachable from itself (a wildcard address becomes loopback). */
function loopbackUrl(address: AddressInfo): URL {
  const host =
    address.address === "::" ? "[::1]" : address.address === "0.0.0.0" ? "127.0.0.1" : address.address;
  return new URL(
    `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${address.port}`,
  );
}
