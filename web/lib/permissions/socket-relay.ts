/**
 * `/ws/permissions` through the web server: browsers open the permission WebSocket on the web's own origin
 * (the backend usually listens on loopback only), and `web/server.ts` relays the upgrade to the backend
 * unchanged (path, query, cookies) plus `X-Forwarded-For`; the backend authenticates it. Decided here only:
 * an upgrade riding on the session cookie (no `token` ticket) from another site's page (`Origin` other than
 * `PUBLIC_URL`'s) is 403, so another site cannot open the socket as the signed-in user. An `https:`
 * BACKEND_URL is reached over TLS (system CAs, `tls.ca` or `NODE_EXTRA_CA_CERTS`), its path kept in front.
 */
import type { IncomingMessage } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import { isPublicOrigin } from "@svc/common";

const PATH = "/ws/permissions";
const UNAVAILABLE = JSON.stringify({ error: "backend_unavailable", code: "backend_unavailable" });
const CROSS_SITE = JSON.stringify({ error: "cross-site request refused", code: "cross_site_request" });

/** An upgrade handler: true when it took the request (the permission socket path), false otherwise. */
export function permissionSocketRelay(
  backendUrl: string,
  publicUrl: string,
  options: { tls?: Pick<tls.ConnectionOptions, "ca"> } = {},
): (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean {
  const target = new URL(backendUrl);
  const secure = target.protocol === "https:";
  const port = Number(target.port || (secure ? 443 : 80));
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const prefix = target.pathname.replace(/\/+$/, "");
  const connect = () =>
    secure
      ? tls.connect({ port, host, servername: net.isIP(host) ? undefined : host, ...options.tls })
      : net.connect({ port, host });
  return (req, socket, head) => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if ((query === -1 ? url : url.slice(0, query)) !== PATH) return false;
    const ticket = new URLSearchParams(query === -1 ? "" : url.slice(query + 1)).get("token");
    const origin = req.headers.origin;
    if (!ticket && origin !== undefined && !isPublicOrigin(origin, publicUrl)) {
      socket.on("error", () => socket.destroy());
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${CROSS_SITE.length}\r\nConnection: close\r\n\r\n${CROSS_SITE}`,
      );
      return true;
    }
    const upstream = connect();
    let connected = false;
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => {
      if (!connected && socket.writable) {
        socket.end(
          `HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: ${UNAVAILABLE.length}\r\nConnection: close\r\n\r\n${UNAVAILABLE}`,
        );
        return;
      }
      socket.destroy();
    });
    upstream.on(secure ? "secureConnect" : "connect", () => {
      connected = true;
      let requestHead = `GET ${prefix}${url} HTTP/1.1\r\n`;
      const raw = req.rawHeaders;
      let forwardedFor: string | null = null;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i].toLowerCase();
        if (name === "host") continue;
        if (name === "x-forwarded-for") {
          forwardedFor = raw[i + 1];
          continue;
        }
        requestHead += `${raw[i]}: ${raw[i + 1]}\r\n`;
      }
      const client = req.socket.remoteAddress ?? "";
      requestHead += `Host: ${target.host}\r\nX-Forwarded-For: ${forwardedFor ? `${forwardedFor}, ${client}` : client}\r\n\r\n`;
      upstream.write(requestHead);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("close", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
    return true;
  };
}
