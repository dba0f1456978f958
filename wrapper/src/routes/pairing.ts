import { type RequestHandler, Router } from "express";
import { jsonBody } from "../http/body";
import { badRequest, runtimeFailed } from "../http/errors";
import type { GatewayRpc } from "../openclaw/rpc";
import { type PairingRequest, pendingRequests } from "../pairing/requests";

const REQUEST_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

export interface PairingRoutesOptions {
  /** The runtime's RPC (`device.pair.list`, `device.pair.approve`, `device.pair.reject`). */
  rpc: GatewayRpc;
  requireAdmin: RequestHandler;
}

/** `GET /api/pairing/pending`, `POST /api/pairing/approve`, `POST /api/pairing/deny` over OpenClaw's RPC. */
export function pairingRoutes({ rpc, requireAdmin }: PairingRoutesOptions): Router {
  const router = Router();

  router.get("/api/pairing/pending", requireAdmin, async (_req, res) => {
    let pending: PairingRequest[];
    try {
      pending = pendingRequests(await rpc.call("device.pair.list", {}));
    } catch (error) {
      throw runtimeFailed(`device.pair.list: ${(error as Error).message}`);
    }
    res.json({ ok: true, pending });
  });

  const decide = (method: "device.pair.approve" | "device.pair.reject", done: string): RequestHandler => {
    return async (req, res) => {
      const requestId: unknown = req.body?.requestId;
      if (typeof requestId !== "string" || !REQUEST_ID.test(requestId)) {
        throw badRequest("requestId required: 1-128 letters, digits, '_' or '-', not starting with '-'");
      }
      try {
        await rpc.call(method, { requestId });
      } catch (error) {
        throw runtimeFailed(`${method}: ${(error as Error).message}`);
      }
      res.json({ ok: true, message: `Pairing request ${requestId} ${done}` });
    };
  };
  const json = jsonBody({ limit: "16kb" });
  router.post("/api/pairing/approve", requireAdmin, json, decide("device.pair.approve", "approved"));
  router.post("/api/pairing/deny", requireAdmin, json, decide("device.pair.reject", "denied"));

  return router;
}
