import { requestEmailChange } from "@/lib/accounts/profile";
import { changeEmailSchema } from "@/lib/accounts/schema";
import { webContext } from "@/lib/context";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** POST /api/account/email (session) `{email, password?}`: mails a link to the new address; `{sent, email, expiresAt}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, changeEmailSchema);
  return Response.json(await requestEmailChange(ctx, user.id, input));
});
