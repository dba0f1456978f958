export const dynamic = "force-dynamic";

import { agentIdQuery, heartbeatBody } from "@/lib/heartbeat/inputs";
import { deleteHeartbeat, getHeartbeat, updateHeartbeat } from "@/lib/heartbeat/service";
import { webContext } from "@/lib/infra/context";
import { parseWith, readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

const agentIdOf = (request: Request) =>
  parseWith(agentIdQuery, new URL(request.url).searchParams.get("agentId") ?? undefined);
const noStore = { headers: { "cache-control": "no-store" } };

/** GET /api/heartbeat?agentId= (session, own agent): `{source: "gateway", enabled, frequency, job}` or `{source: "db", agentId, enabled, frequency}`. */
export const GET = route({ auth: { area: "agent", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await getHeartbeat(ctx, user.id, agentIdOf(request)), noStore);
});

/** PUT /api/heartbeat?agentId= `{enabled, frequency}`: written to the gateway, else the database; the answer says which. */
export const PUT = route({ auth: { area: "agent", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const agentId = agentIdOf(request);
  const settings = await readJson(request, heartbeatBody);
  return Response.json(await updateHeartbeat(ctx, user.id, agentId, settings), noStore);
});

/** DELETE /api/heartbeat?agentId=: `{ok: true, source, deleted}`. */
export const DELETE = route({ auth: { area: "agent", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await deleteHeartbeat(ctx, user.id, agentIdOf(request)), noStore);
});
