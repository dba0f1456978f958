import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";
import { flowCookie } from "@/lib/idp/flow";
import { startIdpSignIn } from "@/lib/idp/service";

export const dynamic = "force-dynamic";

/** GET /api/auth/idp: 302 to the provider's account selector, or to `/login?error=IdpNotConfigured`. */
export const GET = route({ auth: "public" }, async () => {
  const ctx = webContext();
  const { location, sealedFlow } = await startIdpSignIn(ctx);
  const headers = new Headers({ location, "cache-control": "no-store" });
  if (sealedFlow) headers.append("set-cookie", flowCookie(ctx.config, sealedFlow));
  return new Response(null, { status: 302, headers });
});
