import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
import { djStatsSchema, radioWalletBody, radioWalletSchema } from "./inputs";

/** The streaming-service identity routes. */
export const radioOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/user/radio-wallet",
    summary: "The caller's linked radio wallet (null when none)",
    tags: ["radio"],
    auth: ["session", "apiKey"],
    scope: "chain:read",
    success: { status: 200, description: "`{wallet}`", schema: radioWalletSchema },
    errors: session,
  },
  {
    method: "patch",
    path: "/api/user/radio-wallet",
    summary: "Link (0x + 40 hex, stored lower-case) or unlink (null or empty) the caller's radio wallet",
    tags: ["radio"],
    auth: ["session", "apiKey"],
    scope: "chain:write",
    body: radioWalletBody,
    success: {
      status: 200,
      description: "`{ok: true, wallet}`",
      schema: z.object({ ok: z.literal(true), wallet: z.string().nullable() }),
    },
    errors: { ...session, 400: "missing or invalid wallet" },
  },
  {
    method: "get",
    path: "/api/radio/dj-stats",
    summary: "The linked wallet's DJ profile and stats from the radio service (one 6 s budget; tips in USD)",
    tags: ["radio"],
    auth: ["session", "apiKey"],
    scope: "chain:read",
    success: {
      status: 200,
      description: "`{linked: false}`, or `{linked: true, wallet, dj, stats, error?}`",
      schema: djStatsSchema,
    },
    errors: session,
  },
];
