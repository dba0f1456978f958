import { receiveStripeWebhook } from "@/lib/gateway/billing/card";
import { webContext } from "@/lib/infra/context";
import { readBody } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/webhooks/stripe (public; `Stripe-Signature` over the raw body): a paid checkout the platform created
 * credits its buyer the USD amount sold, once per event id; any other checkout is acknowledged and credits
 * nothing. 400 for a bad signature (nothing credited), 503 without STRIPE_WEBHOOK_SECRET. The
 * provider posts from its servers: cross-site requests are accepted, the signature authenticates them.
 */
export const POST = route({ auth: "public", allowCrossSite: true }, async (request: Request) => {
  const ctx = webContext();
  const raw = await readBody(request, { maxBytes: 256 * 1024 });
  return Response.json(await receiveStripeWebhook(ctx, raw, request.headers.get("stripe-signature")));
});
