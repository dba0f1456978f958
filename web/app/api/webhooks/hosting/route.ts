export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { kvConfigFrom } from "@/lib/infra/kv/client";
import { authorizeHostingWebhook, receiveHostingEvent } from "@/lib/webhooks/hosting";
import { hostingEventBody } from "@/lib/webhooks/inputs";

/**
 * POST /api/webhooks/hosting (public, shared secret in `x-webhook-secret` or `Authorization: Bearer`):
 * `{ok: true, event, record, stored}`; 401 bad or missing secret (or one in the URL), 503 secret unset,
 * 400 body not a JSON object. The hosting platform posts from its own servers: cross-site requests are
 * accepted, the shared secret authenticates them.
 */
export const POST = route({ auth: "public", allowCrossSite: true }, async (request: Request) => {
  const ctx = webContext();
  authorizeHostingWebhook(request, ctx.config.HOSTING_WEBHOOK_SECRET);
  const payload = await readJson(request, hostingEventBody, { maxBytes: 256 * 1024 });
  const result = await receiveHostingEvent({ ...ctx, kv: kvConfigFrom(ctx.config) }, payload);
  return Response.json(result);
});
