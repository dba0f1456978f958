/**
 * `GET /api/eval/character` (the summary) and `POST /api/eval/character/run` (a new evaluation), for the
 * platform (the agent's gateway token) or an admin, in the shapes the web reads (`web/lib/persona/inputs.ts`);
 * errors go to the wrapper's mapper as `{ok: false, error}`.
 */
import { type RequestHandler, Router } from "express";
import { jsonBody } from "../http/body";
import type { PersonaEvaluator } from "./evaluation";
import { parseRunRequest } from "./probes";

export interface PersonaRoutesOptions {
  evaluator: PersonaEvaluator;
  /** Lets through the agent's gateway token or an admin. */
  requireAgent: RequestHandler;
}

export function personaRoutes({ evaluator, requireAgent }: PersonaRoutesOptions): Router {
  const router = Router();

  router.get("/api/eval/character", requireAgent, async (_req, res) => {
    res.json(await evaluator.summary());
  });

  router.post(
    "/api/eval/character/run",
    requireAgent,
    jsonBody({ limit: "16kb", strict: false, tooLargeMessage: "the request body is larger than 16 kB" }),
    async (req, res) => {
      const request = parseRunRequest(req.body);
      // A caller that went away (the web gives up after 15 s) stops the probes still under way.
      const gone = new AbortController();
      res.on("close", () => {
        if (!res.writableFinished) gone.abort();
      });
      res.json(await evaluator.run(request, gone.signal));
    },
  );

  return router;
}
