export const dynamic = "force-dynamic";

import { getUserJob } from "@/lib/chat/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

interface JobRoute {
  params: Promise<{ jobId: string }>;
}

/** GET /api/jobs/{jobId} (session, owner): `{job}` as the backend shows it; anybody else's job is 404. */
export const GET = route(
  { auth: { area: "jobs", access: "read" } },
  async (request: Request, { params }: JobRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const job = await getUserJob(ctx, user.id, (await params).jobId);
    return Response.json({ job }, { headers: { "cache-control": "no-store" } });
  },
);
