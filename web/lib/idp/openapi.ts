import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { redirect } from "../infra/openapi/responses";
import { callbackQuerySchema } from "./inputs";

/** Signing in with the identity provider. */
export const idpOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/auth/idp",
    summary: "Start signing in with the identity provider",
    tags: ["auth"],
    auth: ["none"],
    query: z.object({
      next: z
        .string()
        .optional()
        .meta({ description: "a path of this site to return to after signing in (default `/dashboard`)" }),
    }),
    success: redirect("to the provider, or `/login?error=IdpNotConfigured`"),
  },
  {
    method: "get",
    path: "/api/auth/idp/callback",
    summary: "The identity provider's redirect back; sets the session cookie",
    tags: ["auth"],
    auth: ["none"],
    // An account claimed by the sign-in gets new gateway tokens for the agents it took over.
    backendRoutes: ["POST /api/agents/{agentId}/heal-token"],
    query: callbackQuerySchema,
    success: redirect("to the `next` page (default `/dashboard`) with a session, or `/login?error=<code>`"),
  },
];
