/**
 * Who may use the agent's own API (sessions, cron, memory, persona): the agent's gateway token as Bearer —
 * what the platform holds for the agent and what the runtime itself answers — or the wrapper's admin.
 */
import { bearerCredential, safeEqual } from "@svc/common";
import type { Request, RequestHandler } from "express";
import { unauthorized } from "../http/errors";

export function agentAuth(
  gatewayToken: string | undefined,
  isAdmin: (req: Request) => boolean,
): RequestHandler {
  return (req, _res, next) => {
    const bearer = bearerCredential(req.headers.authorization);
    const tokenOk = Boolean(gatewayToken) && bearer !== null && safeEqual(bearer, gatewayToken as string);
    if (tokenOk || isAdmin(req)) return next();
    throw unauthorized();
  };
}
