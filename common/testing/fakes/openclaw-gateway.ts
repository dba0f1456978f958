/**
 * A fake of OpenClaw's gateway WebSocket RPC on 127.0.0.1 (protocol 3, as OpenClaw 2026.4.11 speaks it):
 * it sends `connect.challenge`, checks the `connect` request (shared token, device id = SHA-256 of the
 * ed25519 public key, v2 signature over the nonce), then answers `req` frames from a method table the
 * test gives. Every call is recorded. For the wrapper's own side; the runtime's behaviour is tested
 * against the real OpenClaw.
 */
import { createHash, createPublicKey, randomUUID, verify } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";

export type FakeRpcHandler = (params: Record<string, unknown>) => unknown | Promise<unknown>;

/** Throw this from a handler to answer `{ok: false, error: {code, message}}`. */
export class FakeRpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface FakeOpenClawGateway {
  port: number;
  /** Methods called after `connect`, in order. */
  calls: Array<{ method: string; params: Record<string, unknown> }>;
  /** Connect attempts refused, with the reason. */
  refused: string[];
  setMethod(method: string, handler: FakeRpcHandler): void;
  /** Closes every open connection (as a restarting runtime does). */
  dropConnections(): void;
  close(): Promise<void>;
}

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function validSignature(params: Record<string, unknown>, token: string, nonce: string): string | null {
  const device = params.device as Record<string, unknown> | undefined;
  const client = params.client as Record<string, unknown> | undefined;
  if (!device || !client) return "device identity required";
  const raw = Buffer.from(String(device.publicKey ?? ""), "base64url");
  if (raw.length !== 32) return "device public key invalid";
  if (createHash("sha256").update(raw).digest("hex") !== device.id) return "device identity mismatch";
  if (device.nonce !== nonce) return "device nonce mismatch";
  const scopes = Array.isArray(params.scopes) ? params.scopes.join(",") : "";
  const payload = [
    "v2",
    device.id,
    client.id,
    client.mode,
    params.role,
    scopes,
    String(device.signedAt),
    token,
    nonce,
  ].join("|");
  const key = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, raw]),
    format: "der",
    type: "spki",
  });
  const ok = verify(
    null,
    Buffer.from(payload),
    key,
    Buffer.from(String(device.signature ?? ""), "base64url"),
  );
  return ok ? null : "device signature invalid";
}

export async function startFakeOpenClawGateway(options: { token: string }): Promise<FakeOpenClawGateway> {
  const methods = new Map<string, FakeRpcHandler>();
  const calls: FakeOpenClawGateway["calls"] = [];
  const refused: string[] = [];
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server });

  wss.on("connection", (socket: WebSocket) => {
    const nonce = randomUUID();
    let connected = false;
    socket.send(
      JSON.stringify({ type: "event", event: "connect.challenge", payload: { nonce, ts: Date.now() } }),
    );
    socket.on("message", async (data) => {
      let frame: { type?: string; id?: string; method?: string; params?: Record<string, unknown> };
      try {
        frame = JSON.parse(String(data));
      } catch {
        return;
      }
      if (frame.type !== "req" || typeof frame.id !== "string") return;
      const answer = (ok: boolean, payload?: unknown, error?: { code: string; message: string }) =>
        socket.send(JSON.stringify({ type: "res", id: frame.id, ok, ...(ok ? { payload } : { error }) }));
      const params = frame.params ?? {};
      if (!connected) {
        const auth = params.auth as { token?: unknown } | undefined;
        const reason =
          frame.method !== "connect"
            ? "first frame must be connect"
            : auth?.token !== options.token
              ? "unauthorized: gateway token mismatch"
              : validSignature(params, options.token, nonce);
        if (reason) {
          refused.push(reason);
          answer(false, undefined, { code: "INVALID_REQUEST", message: reason });
          socket.close(1008, reason);
          return;
        }
        connected = true;
        answer(true, { type: "hello-ok", protocol: 3, policy: { tickIntervalMs: 15_000 } });
        return;
      }
      const method = String(frame.method);
      calls.push({ method, params });
      const handler = methods.get(method);
      if (!handler) {
        answer(false, undefined, { code: "INVALID_REQUEST", message: `unknown method: ${method}` });
        return;
      }
      try {
        answer(true, await handler(params));
      } catch (error) {
        const code = error instanceof FakeRpcError ? error.code : "UNAVAILABLE";
        answer(false, undefined, { code, message: (error as Error).message });
      }
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    calls,
    refused,
    setMethod: (method, handler) => methods.set(method, handler),
    dropConnections: () => {
      for (const client of wss.clients) client.terminate();
    },
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
