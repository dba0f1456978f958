import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { characterRunBody } from "@/lib/persona/inputs";
import { readPersonaEvaluation, runPersonaEvaluation } from "@/lib/persona/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** GET /api/runtime/character-qa (session): the agent's persona scores, drift and history (10 s). */
export const GET = route({ auth: { area: "persona", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await readPersonaEvaluation(ctx, user.id), { headers: noStore });
});

/** POST /api/runtime/character-qa (session) `{probeSet?, dimensions?}`: runs an evaluation on the agent (15 s). */
export const POST = route({ auth: { area: "persona", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, characterRunBody, { optional: true });
  return Response.json(await runPersonaEvaluation(ctx, user.id, input), { headers: noStore });
});
