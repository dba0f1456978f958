/**
 * A stand-in for the runtime gateway process, run as a child process by wrapper tests.
 * Listens on 127.0.0.1:$OPENCLAW_GATEWAY_PORT:
 * - GET /healthz: {ok: true} once FAKE_RUNTIME_READY_AFTER_MS (default 200) have passed, 503 before;
 * - GET /whoami: {token} from OPENCLAW_GATEWAY_TOKEN; GET /env: the runtime variables and PORT;
 * - GET /stream: 5 chunks 50 ms apart; POST /crash: exit code 3;
 * - GET /print?text=: writes text to stdout without a newline; WebSocket /ws echoes messages.
 * SIGTERM exits 0, unless FAKE_RUNTIME_IGNORE_SIGTERM=1.
 */
import { createServer } from "node:http";
import { WebSocketServer } from "ws";

const port = Number(process.env.OPENCLAW_GATEWAY_PORT);
const readyAfterMs = Number(process.env.FAKE_RUNTIME_READY_AFTER_MS ?? 200);
const startedAt = Date.now();

function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (req.method === "GET" && url.pathname === "/healthz") {
    if (Date.now() - startedAt >= readyAfterMs) sendJson(res, 200, { ok: true });
    else sendJson(res, 503, { ok: false });
    return;
  }
  if (req.method === "GET" && url.pathname === "/whoami") {
    sendJson(res, 200, { token: process.env.OPENCLAW_GATEWAY_TOKEN ?? null });
    return;
  }
  if (req.method === "GET" && url.pathname === "/env") {
    const names = [
      "PORT",
      "OPENCLAW_GATEWAY_PORT",
      "OPENCLAW_GATEWAY_TOKEN",
      "OPENCLAW_STATE_DIR",
      "OPENCLAW_CONFIG_PATH",
    ];
    sendJson(res, 200, Object.fromEntries(names.map((name) => [name, process.env[name] ?? null])));
    return;
  }
  if (req.method === "GET" && url.pathname === "/stream") {
    res.writeHead(200, { "content-type": "text/plain" });
    let sent = 0;
    const timer = setInterval(() => {
      sent++;
      res.write(`chunk ${sent}\n`);
      if (sent === 5) {
        clearInterval(timer);
        res.end();
      }
    }, 50);
    res.on("close", () => clearInterval(timer));
    return;
  }
  if (req.method === "GET" && url.pathname === "/print") {
    process.stdout.write(url.searchParams.get("text") ?? "");
    sendJson(res, 200, { ok: true });
    return;
  }
  if (req.method === "POST" && url.pathname === "/crash") {
    sendJson(res, 200, { ok: true });
    setTimeout(() => process.exit(3), 10);
    return;
  }
  sendJson(res, 404, { error: "not found", method: req.method, path: url.pathname });
});

const wss = new WebSocketServer({ noServer: true });
server.on("upgrade", (req, socket, head) => {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (url.pathname !== "/ws") {
    socket.destroy();
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
});

process.on("SIGTERM", () => {
  if (process.env.FAKE_RUNTIME_IGNORE_SIGTERM === "1") {
    process.stdout.write("fake runtime ignoring SIGTERM\n");
    return;
  }
  process.exit(0);
});

server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`fake runtime listening on ${port}\n`);
  process.stderr.write(`fake runtime stderr ready on ${port}\n`);
});
