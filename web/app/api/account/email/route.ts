import { changeEmailSchema } from "@/lib/accounts/inputs";
import { requestEmailChange } from "@/lib/accounts/profile";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** POST /api/account/email (session) `{email, password?}`: mails a link to the new address; `{sent, email, expiresAt}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, changeEmailSchema);
  return Response.json(await requestEmailChange(ctx, user.id, input));
});
