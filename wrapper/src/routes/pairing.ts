import { type RequestHandler, Router } from "express";
import { jsonBody } from "../http/body";
import { badRequest, cliFailed } from "../http/errors";
import { type PairingRequest, parsePendingList, runCli } from "../pairing/cli";

const REQUEST_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

export interface PairingRoutesOptions {
  /** RUNTIME_CLI_COMMAND split into words: the executable, then any leading arguments. */
  cliArgv: string[];
  requireAdmin: RequestHandler;
  /** The CLI's environment (the wrapper's, from its config); unset, execFile passes this process's. */
  env?: NodeJS.ProcessEnv;
}

/** `GET /api/pairing/pending`, `POST /api/pairing/approve`, `POST /api/pairing/deny` over the runtime CLI. */
export function pairingRoutes({ cliArgv, requireAdmin, env }: PairingRoutesOptions): Router {
  const router = Router();

  router.get("/api/pairing/pending", requireAdmin, async (_req, res) => {
    let pending: PairingRequest[];
    try {
      pending = parsePendingList(await runCli(cliArgv, ["devices", "list", "--json"], env));
    } catch (error) {
      throw cliFailed((error as Error).message);
    }
    res.json({ ok: true, pending });
  });

  const decide = (verb: "approve" | "reject", done: string): RequestHandler => {
    return async (req, res) => {
      const requestId: unknown = req.body?.requestId;
      if (typeof requestId !== "string" || !REQUEST_ID.test(requestId)) {
        throw badRequest("requestId required: 1-128 letters, digits, '_' or '-', not starting with '-'");
      }
      try {
        await runCli(cliArgv, ["devices", verb, requestId], env);
      } catch (error) {
        throw cliFailed((error as Error).message);
      }
      res.json({ ok: true, message: `Pairing request ${requestId} ${done}` });
    };
  };
  const json = jsonBody({ limit: "16kb" });
  router.post("/api/pairing/approve", requireAdmin, json, decide("approve", "approved"));
  router.post("/api/pairing/deny", requireAdmin, json, decide("reject", "denied"));

  return router;
}
