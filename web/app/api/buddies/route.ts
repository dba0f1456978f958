import { createBuddyBody } from "@/lib/buddies/inputs";
import { createBuddy, listBuddies } from "@/lib/buddies/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/buddies (session): `{buddies}`, oldest first. */
export const GET = route({ auth: { area: "buddies", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { buddies: await listBuddies(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});

/** POST /api/buddies (session) `{name, type}`: 201 `{buddy}`; at most 20 per user. */
export const POST = route({ auth: { area: "buddies", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, createBuddyBody);
  return Response.json({ buddy: await createBuddy(ctx, user.id, input) }, { status: 201 });
});
