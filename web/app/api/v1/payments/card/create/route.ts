import { createCardCheckout } from "@/lib/gateway/billing/card";
import { checkoutQuery } from "@/lib/gateway/inputs";
import { webContext } from "@/lib/infra/context";
import { parseWith } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/**
 * GET /api/v1/payments/card/create?plugin=<id> (session): a card checkout for one credit pack, answered with a
 * 303 to the provider's page; 503 naming STRIPE_SECRET_KEY when card payments are not configured.
 */
export const GET = route({ auth: { area: "billing", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const query = parseWith(checkoutQuery, Object.fromEntries(new URL(request.url).searchParams));
  const url = await createCardCheckout(ctx, user, query.plugin);
  return new Response(null, { status: 303, headers: { location: url, "cache-control": "no-store" } });
});
