import { fileQuota, filesDeps } from "@/lib/files/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/files/quota (session): `{plan, quotaBytes, usedBytes, maxFileBytes}` of the caller. */
export const GET = route({ auth: { area: "files", access: "read" } }, async (request: Request) => {
  const deps = filesDeps(webContext());
  const user = await requireSessionUser(deps, request);
  return Response.json(await fileQuota(deps, user.id), { headers: { "cache-control": "no-store" } });
});
