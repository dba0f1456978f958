/**
 * `GET /api/identity?challenge=<hex>`: the wrapper proves it is its agent's, so the platform knows whom it
 * reached before it sends the agent's gateway token or this wrapper's admin password (see
 * `wrapperIdentityProof` and @svc/common's agent-identity.ts). No authentication: the answer is the proof,
 * computed with the admin password, which never reaches the runtime or the agent's tools.
 */
import { type WrapperListenAddress, wrapperIdentityProof } from "@svc/common";
import { Router } from "express";
import { badRequest, notFound } from "../http/errors";

/** The platform's challenges are 32 random bytes in hex; this bounds what anyone may ask to be signed. */
const CHALLENGE = /^[0-9a-f]{32,128}$/;

export interface IdentityRoutesOptions {
  /** WRAPPER_ADMIN_PASSWORD: the key of the proof (without one the wrapper cannot prove anything). */
  adminPassword: string | undefined;
  /** HOST and WRAPPER_PORT: the address the proof states. */
  listen: WrapperListenAddress;
}

export function identityRoutes({ adminPassword, listen }: IdentityRoutesOptions): Router {
  const router = Router();
  router.get("/api/identity", (req, res) => {
    const { challenge } = req.query;
    if (typeof challenge !== "string" || !CHALLENGE.test(challenge))
      throw badRequest("challenge must be 32 to 128 lower-case hex digits");
    if (!adminPassword) throw notFound("this wrapper has no admin password to prove its identity with");
    res.json({
      ok: true,
      host: listen.host,
      port: listen.port,
      proof: wrapperIdentityProof(adminPassword, challenge, listen),
    });
  });
  return router;
}
