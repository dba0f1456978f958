import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { hostingEventBody } from "./inputs";

/** The hosting platform's webhook. */
export const webhooksOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/webhooks/hosting",
    summary: "The hosting platform's events (cross-site; the shared secret authenticates them)",
    tags: ["webhooks"],
    auth: ["webhookSecret"],
    body: hostingEventBody,
    success: {
      status: 200,
      description: "`{ok: true, event, record, stored}`",
      schema: z.object({ ok: z.literal(true) }).loose(),
    },
    errors: { 400: "not a JSON object", 401: "bad or missing secret", 503: "HOSTING_WEBHOOK_SECRET unset" },
  },
];
