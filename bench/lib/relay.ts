import net from "node:net";

/**
 * A raw TCP relay in front of a loopback upstream: two sockets piped, one upstream connection per client
 * connection, no HTTP at all. The most any proxy process can do on this machine: the ceiling anchor of the
 * proxy benches.
 */
export function relayServer(upstreamPort: number): net.Server {
  return net.createServer((client) => {
    const upstream = net.connect(upstreamPort, "127.0.0.1");
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream).on("error", () => client.destroy());
    upstream.pipe(client).on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
}
