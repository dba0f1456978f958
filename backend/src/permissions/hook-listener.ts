/**
 * `POST /api/hooks/classify` served ahead of Express: the agents' pre-tool-use hook calls it before every
 * tool call, so it is the backend's hottest path. It behaves exactly as the Express route in hooks.ts
 * (which stays for apps built with `createApp` alone): JSON body (1 MB, else 413; bad JSON 400
 * `invalid_json`; not JSON 400), then the agent's gateway token as Bearer (401; 503 without
 * DATA_ENCRYPTION_KEY), then the body's fields (400; another agent's id 403), then `classifyAndQueue`.
 * Errors have the backend's shape `{error, message}`; requests are logged like every other.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Clock, requestLogger, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import { gatewayTokenStore } from "../agents/tokens";
import type { BackendConfig } from "../config";
import { errorAnswer, invalidJson, payloadTooLarge } from "../http/errors";
import type { PermissionBus } from "./bus";
import { agentOfBearer, classifyHookCall } from "./hooks";
import { type PermissionPolicyConfig, permissionPolicy } from "./service";

const PATH = "/api/hooks/classify";
const BODY_LIMIT = 1024 * 1024;

export interface HookListenerDeps {
  db: Database;
  bus: PermissionBus;
  config: Pick<BackendConfig, "DATA_ENCRYPTION_KEY"> & PermissionPolicyConfig;
  logger: Logger;
  /** Request times and expiry (default: the system clock). */
  clock?: Clock;
}

/** A request listener step: true when it took the request (the hook path), false to pass it on. */
export function hookClassifyListener(
  deps: HookListenerDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { db, bus, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const policy = permissionPolicy(deps.config);
  const tokens = gatewayTokenStore(db, deps.config.DATA_ENCRYPTION_KEY);
  const log = requestLogger(logger);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBody(req);
    const owner = await agentOfBearer(tokens, req.headers.authorization);
    send(res, 200, await classifyHookCall({ db, bus, logger, clock, policy }, owner, body));
  }

  return (req, res) => {
    if (req.method !== "POST") return false;
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if ((query === -1 ? url : url.slice(0, query)) !== PATH) return false;
    log(req, res, () => {
      handle(req, res).catch((err: unknown) => {
        const { status, body, unexpected } = errorAnswer(err);
        if (unexpected) logger.error({ err }, "unhandled error");
        send(res, status, body);
      });
    });
    return true;
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** The body as Express's JSON parser gives it: `{}` when empty, undefined when not JSON-typed. */
function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const json = type === "application/json";
  return new Promise((resolve, reject) => {
    if (!json) {
      req.resume();
      req.on("end", () => resolve(undefined));
      req.on("error", reject);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        req.removeAllListeners("data");
        req.resume();
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () => {
      if (size > BODY_LIMIT) return;
      const text = Buffer.concat(chunks).toString("utf8");
      if (text.trim() === "") {
        resolve({});
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(invalidJson());
      }
    });
  });
}
