import { listCompanies } from "@/lib/board/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/jobs/companies (session): `{companies}`, the caller's own, newest first. */
export const GET = route({ auth: { area: "board", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { companies: await listCompanies(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});
