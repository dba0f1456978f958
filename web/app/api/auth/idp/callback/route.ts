import { clearedFlowCookie, FLOW_COOKIE } from "@/lib/idp/flow";
import { completeIdpSignIn } from "@/lib/idp/service";
import { webContext } from "@/lib/infra/context";
import { clientIp } from "@/lib/infra/http/client-ip";
import { readCookie } from "@/lib/infra/http/cookies";
import { route } from "@/lib/infra/http/errors";
import { sessionCookie } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** GET /api/auth/idp/callback: 302 to `/dashboard` with a session, or to `/login?error=<code>`. */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const outcome = await completeIdpSignIn(ctx, {
    query: Object.fromEntries(new URL(request.url).searchParams),
    flowCookie: readCookie(request, FLOW_COOKIE),
    ip: clientIp(request, ctx.config),
    userAgent: request.headers.get("user-agent") ?? undefined,
  });
  const headers = new Headers({ location: outcome.location, "cache-control": "no-store" });
  headers.append("set-cookie", clearedFlowCookie(ctx.config));
  if (outcome.sessionToken) headers.append("set-cookie", sessionCookie(ctx.config, outcome.sessionToken));
  return new Response(null, { status: 302, headers });
});
