import { buddyActionBody } from "@/lib/buddies/inputs";
import { actOnBuddy, deleteBuddy } from "@/lib/buddies/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

interface BuddyRoute {
  params: Promise<{ buddyId: string }>;
}

/** PATCH /api/buddies/{buddyId} (session) `{action, newName?}`: `{buddy, leveledUp}`, for rename `{buddy}`. */
export const PATCH = route(
  { auth: { area: "buddies", access: "write" } },
  async (request: Request, { params }: BuddyRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const action = await readJson(request, buddyActionBody);
    return Response.json(await actOnBuddy(ctx, user.id, (await params).buddyId, action));
  },
);

/** DELETE /api/buddies/{buddyId} (session): `{success: true}`. */
export const DELETE = route(
  { auth: { area: "buddies", access: "write" } },
  async (request: Request, { params }: BuddyRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    await deleteBuddy(ctx, user.id, (await params).buddyId);
    return Response.json({ success: true });
  },
);
