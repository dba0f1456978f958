/**
 * A client of OpenClaw's gateway WebSocket RPC on loopback (protocol 3 of OpenClaw 2026.4.11): the server
 * sends `connect.challenge`, the client answers `connect` with the gateway token and its signed device
 * identity, then `{type:"req", id, method, params}` → `{type:"res", id, ok, payload|error}`. The wrapper uses
 * it for what OpenClaw offers only here: sessions, cron, health, device pairing, its plugin's status. One
 * connection, reopened on the next call after it closed (a runtime restart closes it); every call has a deadline.
 */
import WebSocket from "ws";
import { type DeviceIdentity, signConnect } from "./device-identity";

export const PROTOCOL_VERSION = 3;
/** Everything the wrapper does on the runtime: reading, writing, config, pairing, approvals. */
export const OPERATOR_SCOPES = [
  "operator.read",
  "operator.write",
  "operator.admin",
  "operator.pairing",
  "operator.approvals",
];
const CLIENT_ID = "gateway-client";
const CLIENT_MODE = "backend";
const DEFAULT_CALL_TIMEOUT_MS = 10_000;
/** OpenClaw answers frames up to a few MB (a session list, a transcript preview); bound what is kept. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The runtime answered a call with an error, or the call could not be made (`code` says which). */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

export interface GatewayRpcOptions {
  port: number;
  /** The runtime's shared gateway token (`OPENCLAW_GATEWAY_TOKEN`). */
  token: string;
  identity: DeviceIdentity;
  /** Sent as the client's version (the wrapper's). */
  version?: string;
  timeoutMs?: number;
}

export interface GatewayRpc {
  call<T = unknown>(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  close(): void;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

interface Frame {
  type?: unknown;
  id?: unknown;
  ok?: unknown;
  payload?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
  event?: unknown;
}

class OpenClawRpc implements GatewayRpc {
  private socket: WebSocket | null = null;
  private ready: Promise<void> | null = null;
  private readonly pending = new Map<string, Pending>();
  private sequence = 0;

  constructor(private readonly options: GatewayRpcOptions) {}

  async call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs?: number): Promise<T> {
    await this.connect();
    return (await this.send(method, params, timeoutMs)) as T;
  }

  close(): void {
    this.socket?.terminate();
    this.socket = null;
    this.ready = null;
    this.failPending(new RpcError("closed", "the runtime connection was closed"));
  }

  private connect(): Promise<void> {
    if (this.ready && this.socket?.readyState === WebSocket.OPEN) return this.ready;
    if (this.ready && this.socket?.readyState === WebSocket.CONNECTING) return this.ready;
    this.ready = this.open().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private open(): Promise<void> {
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${this.options.port}`, { maxPayload: MAX_FRAME_BYTES });
      this.socket = socket;
      let settled = false;
      const finish = (error?: Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          socket.terminate();
          reject(error);
        } else resolve();
      };
      const timer = setTimeout(
        () =>
          finish(new RpcError("timeout", `the runtime did not complete the handshake in ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.on("message", (data) => {
        let frame: Frame;
        try {
          frame = JSON.parse(String(data)) as Frame;
        } catch {
          return;
        }
        if (frame.type === "event" && frame.event === "connect.challenge") {
          const nonce = (frame.payload as { nonce?: unknown } | undefined)?.nonce;
          if (typeof nonce !== "string") {
            finish(new RpcError("protocol", "the runtime's connect challenge has no nonce"));
            return;
          }
          this.send("connect", this.connectParams(nonce), timeoutMs).then(
            () => finish(),
            (error: Error) => finish(error),
          );
          return;
        }
        if (frame.type === "res" && typeof frame.id === "string") this.settle(frame);
      });
      socket.on("error", (error) => finish(new RpcError("unreachable", `runtime RPC: ${error.message}`)));
      socket.on("close", () => {
        if (this.socket === socket) {
          this.socket = null;
          this.ready = null;
        }
        finish(new RpcError("closed", "the runtime closed the connection"));
        this.failPending(new RpcError("closed", "the runtime closed the connection"));
      });
    });
  }

  private connectParams(nonce: string): Record<string, unknown> {
    const { identity, token } = this.options;
    const signedAt = Date.now();
    const signature = signConnect(identity, {
      clientId: CLIENT_ID,
      clientMode: CLIENT_MODE,
      role: "operator",
      scopes: OPERATOR_SCOPES,
      signedAtMs: signedAt,
      token,
      nonce,
    });
    return {
      minProtocol: PROTOCOL_VERSION,
      maxProtocol: PROTOCOL_VERSION,
      client: {
        id: CLIENT_ID,
        version: this.options.version ?? "0",
        platform: process.platform,
        mode: CLIENT_MODE,
      },
      role: "operator",
      scopes: OPERATOR_SCOPES,
      caps: [],
      auth: { token },
      device: { id: identity.deviceId, publicKey: identity.publicKey, signature, signedAt, nonce },
    };
  }

  private send(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<unknown> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN)
      return Promise.reject(new RpcError("closed", "the runtime connection is not open"));
    const id = String(++this.sequence);
    const deadline = timeoutMs ?? this.options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError("timeout", `${method}: no answer from the runtime in ${deadline} ms`));
        // A connection that stopped answering (e.g. across a gateway restart) is not trusted again: the next
        // call opens a new one.
        if (this.socket === socket) this.close();
      }, deadline);
      this.pending.set(id, { resolve, reject, timer });
      socket.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }

  private settle(frame: Frame): void {
    const waiting = this.pending.get(frame.id as string);
    if (!waiting) return;
    this.pending.delete(frame.id as string);
    clearTimeout(waiting.timer);
    if (frame.ok === true) {
      waiting.resolve(frame.payload);
      return;
    }
    const code = typeof frame.error?.code === "string" ? frame.error.code : "error";
    const message = typeof frame.error?.message === "string" ? frame.error.message : "the runtime refused";
    waiting.reject(new RpcError(code, message));
  }

  private failPending(error: Error): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
      this.pending.delete(id);
    }
  }
}

export function createGatewayRpc(options: GatewayRpcOptions): GatewayRpc {
  return new OpenClawRpc(options);
}
