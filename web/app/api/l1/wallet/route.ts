import { l1AddressQuery } from "@/lib/chain/inputs";
import { lookupWallet } from "@/lib/chain/service";
import { webContext } from "@/lib/infra/context";
import { parseWith } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/l1/wallet?address= (session): SOL balance, top 20 tokens, account info, via the caller's RPC URL. */
export const GET = route({ auth: { area: "chain", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const { address } = parseWith(l1AddressQuery, Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await lookupWallet(ctx, user.id, address), {
    headers: { "cache-control": "no-store" },
  });
});
