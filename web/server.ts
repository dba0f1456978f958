/**
 * The web server: Next.js behind a plain node:http server, so route handlers can know the client's
 * socket address (Next route handlers have no access to the socket). Every request gets the header
 * `x-svc-client-ip` set to the remote address, replacing whatever a client sent. WebSocket upgrades of
 * `/ws/permissions` are relayed to the backend (lib/permissions/socket-relay.ts), which refuses the
 * cookie-authenticated ones from another site's pages (`Origin` other than `PUBLIC_URL`'s).
 */
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { exitOnStartupError, httpUrl, listen, parseEnv, port } from "@svc/common";
import next from "next";
import { z } from "zod";
import { envSchema, loadWebConfig } from "./lib/config";
import { CLIENT_IP_HEADER } from "./lib/http/client-ip";
import { permissionSocketRelay } from "./lib/permissions/socket-relay";

try {
  // The app's own configuration, checked before anything listens (route handlers read it again lazily).
  loadWebConfig();
  const env = parseEnv(
    z.object({
      WEB_PORT: port(3000),
      HOST: z.string().default("127.0.0.1"),
      BACKEND_URL: httpUrl().default("http://127.0.0.1:4000"),
      PUBLIC_URL: envSchema.shape.PUBLIC_URL,
    }),
  );
  const app = next({
    dev: false,
    dir: fileURLToPath(new URL(".", import.meta.url)),
    hostname: env.HOST,
    port: env.WEB_PORT,
  });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = createServer((req, res) => {
    req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? "";
    handle(req, res).catch((err: unknown) => {
      process.stderr.write(`web: request failed: ${String(err)}\n`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "internal server error", code: "internal" }));
    });
  });
  // The permission WebSocket on the web's origin, relayed to the backend; no other upgrade is served.
  const relayPermissions = permissionSocketRelay(env.BACKEND_URL, env.PUBLIC_URL);
  server.on("upgrade", (req, socket, head) => {
    if (!relayPermissions(req, socket, head)) socket.destroy();
  });
  await listen(server, env.WEB_PORT, env.HOST);
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
