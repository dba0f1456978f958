import { deleteAccount } from "@/lib/accounts/deletion";
import { changeNameSchema, deleteAccountSchema } from "@/lib/accounts/inputs";
import { changeName } from "@/lib/accounts/profile";
import { accountSummary } from "@/lib/accounts/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { clearedSessionCookie } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** GET /api/account (session): the dashboard's account panel. */
export const GET = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await accountSummary(ctx, user.id));
});

/** PATCH /api/account (session) `{name}`: renames the account; answers the account as GET does. */
export const PATCH = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, changeNameSchema);
  return Response.json(await changeName(ctx, user.id, input));
});

/**
 * DELETE /api/account (session) `{password}` (or `{confirm: <email>}` without a password): deletes the
 * account and everything it owns; `{deleted: true, agents, files}` and the session cookie cleared.
 */
export const DELETE = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, deleteAccountSchema);
  const deleted = await deleteAccount(ctx, { userId: user.id, user }, input);
  return Response.json(deleted, { headers: { "set-cookie": clearedSessionCookie(ctx.config) } });
});
