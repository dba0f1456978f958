import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";

/** The identity provider's security events. */
export const riscOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/security/risc",
    summary: "The identity provider's security event token (cross-site; the signature authenticates it)",
    tags: ["auth"],
    auth: ["none"],
    body: z.string().meta({ description: "the raw security event token (JWT), at most 64 KB" }),
    bodyType: "application/secevent+jwt",
    success: {
      status: 202,
      description: "`{ok: true}` (`duplicate: true` on replay)",
      schema: z.object({ ok: z.literal(true), duplicate: z.boolean().optional() }),
    },
    errors: {
      400: "the token does not verify",
      413: "over 64 KB",
      502: "the provider's signing keys could not be fetched (`signing_keys_unavailable`)",
    },
  },
];
