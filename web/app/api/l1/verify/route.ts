import { l1AddressQuery } from "@/lib/chain/inputs";
import { verifyHolder } from "@/lib/chain/service";
import { webContext } from "@/lib/infra/context";
import { parseWith } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/** GET /api/l1/verify?address= (public): the platform token balance, eligibility, benefits and all tiers. */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const { address } = parseWith(l1AddressQuery, Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await verifyHolder(webContext(), address));
});
