import { flowCookie } from "@/lib/idp/flow";
import { startIdpSignIn } from "@/lib/idp/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/**
 * GET /api/auth/idp[?next=<path>]: 302 to the provider's account selector, or to
 * `/login?error=IdpNotConfigured`; after signing in, the callback goes to `next` (a path of this site).
 */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const next = new URL(request.url).searchParams.get("next") ?? undefined;
  const { location, sealedFlow } = await startIdpSignIn(ctx, next);
  const headers = new Headers({ location, "cache-control": "no-store" });
  if (sealedFlow) headers.append("set-cookie", flowCookie(ctx.config, sealedFlow));
  return new Response(null, { status: 302, headers });
});
