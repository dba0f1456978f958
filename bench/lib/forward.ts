import http from "node:http";

/**
 * The peers' way to the upstream: the request's body (read already, or piped) sent to `path` on the loopback
 * upstream over a keep-alive agent, and the answer's status, type, length and body piped back, with `extra`
 * headers.
 */
export function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  upstream: { port: number; path: string; agent: http.Agent },
  extra: http.OutgoingHttpHeaders = {},
  body?: Buffer,
): void {
  const request = http.request(
    {
      host: "127.0.0.1",
      port: upstream.port,
      method: req.method,
      path: upstream.path,
      agent: upstream.agent,
      headers: {
        "content-type": req.headers["content-type"] ?? "application/json",
        "content-length": body ? body.length : (req.headers["content-length"] ?? "0"),
      },
    },
    (answer) => {
      const headers: http.OutgoingHttpHeaders = { ...extra };
      if (answer.headers["content-type"]) headers["content-type"] = answer.headers["content-type"];
      if (answer.headers["content-length"]) headers["content-length"] = answer.headers["content-length"];
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    },
  );
  request.on("error", () => res.destroy());
  if (body) request.end(body);
  else req.pipe(request);
}
