import { rpcConfigBody } from "@/lib/chain/inputs";
import { getRpcConfig, saveRpcConfig } from "@/lib/chain/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/l1/rpc-config (session): `{rpcUrl, defaultRpcUrl, source}`. */
export const GET = route({ auth: { area: "chain", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await getRpcConfig(ctx, user.id));
});

/** POST /api/l1/rpc-config (session) `{rpcUrl}`: HTTPS, no placeholder, a public host; `{success, rpcUrl}`. */
export const POST = route({ auth: { area: "chain", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const { rpcUrl } = await readJson(request, rpcConfigBody);
  return Response.json(await saveRpcConfig(ctx, user.id, rpcUrl));
});
