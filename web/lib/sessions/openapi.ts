import { type ApiOperation, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, ok } from "../infra/openapi/responses";

/** The signed-in session: who it is, and signing out. */
export const sessionsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/auth/session",
    summary: "The signed-in user, or `{user: null}` (always 200)",
    tags: ["auth"],
    auth: ["none", "session"],
    success: { status: 200, description: "`{user}`", schema: z.object({ user: jsonObject.nullable() }) },
  },
  {
    method: "post",
    path: "/api/auth/signout",
    summary: "Delete the session and clear the cookie",
    tags: ["auth"],
    auth: ["none", "session"],
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: crossSite,
  },
];
