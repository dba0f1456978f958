import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { radioWalletBody } from "@/lib/radio/inputs";
import { getRadioWallet, setRadioWallet } from "@/lib/radio/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/user/radio-wallet (session): `{wallet}`, null when none is linked. */
export const GET = route({ auth: { area: "chain", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json({ wallet: await getRadioWallet(ctx.db, user.id) });
});

/** PATCH /api/user/radio-wallet (session) `{wallet}`: 0x + 40 hex links it (lower-case), null or "" unlinks. */
export const PATCH = route({ auth: { area: "chain", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const { wallet } = await readJson(request, radioWalletBody);
  return Response.json(await setRadioWallet(ctx.db, user.id, wallet || null));
});
