import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { runWalletAction, runWalletQuery } from "@/lib/wallets/actions";
import { walletPostBody } from "@/lib/wallets/inputs";

export const dynamic = "force-dynamic";
const noStore = { "cache-control": "no-store" };

/** GET /api/agent/mpp (session): `?action=list-wallets|get-wallet|get-balance|list-payments`, else the index. */
export const GET = route({ auth: { area: "wallets", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await runWalletQuery(ctx, user.id, new URL(request.url).searchParams), {
    headers: noStore,
  });
});

/** POST /api/agent/mpp (session) `{action: create-wallet|register-wallet|make-payment, ...}`. */
export const POST = route({ auth: { area: "wallets", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const body = await readJson(request, walletPostBody);
  return Response.json(await runWalletAction(ctx, user.id, body), { headers: noStore });
});
