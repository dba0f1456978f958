import { getL1Price } from "@/lib/chain/price";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/** GET /api/l1/price (public): `{price, change24h, marketCap, volume24h}`, cached 60 s in PostgreSQL. */
export const GET = route({ auth: "public" }, async () => Response.json(await getL1Price(webContext())));
