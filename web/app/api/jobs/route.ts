export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { parseWith } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { jobListQuery } from "@/lib/platform-jobs/inputs";
import { listUserJobs } from "@/lib/platform-jobs/service";
import { requireSessionUser } from "@/lib/sessions/require";

/** GET /api/jobs?limit=&cursor=&type=&status= (session): `{jobs, nextCursor}`, the user's own, newest first. */
export const GET = route({ auth: { area: "jobs", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const query = parseWith(jobListQuery, Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await listUserJobs(ctx, user, query), { headers: { "cache-control": "no-store" } });
});
