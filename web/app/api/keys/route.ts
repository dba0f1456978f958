import { createApiKeyBody } from "@/lib/apikeys/inputs";
import { createApiKey, listApiKeys } from "@/lib/apikeys/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** GET /api/keys (session): `{keys: [{id, name, prefix, createdAt, lastUsedAt}]}`, active keys, newest first. */
export const GET = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json({ keys: await listApiKeys(ctx, user.id) }, { headers: noStore });
});

/** POST /api/keys (session) `{name}`: 201 `{id, name, prefix, createdAt, key}`, the raw key shown this once. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, createApiKeyBody);
  return Response.json(await createApiKey(ctx, user.id, input), { status: 201, headers: noStore });
});
