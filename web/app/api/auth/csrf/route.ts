import { webContext } from "@/lib/infra/context";
import { csrfCookie, issueCsrfToken } from "@/lib/infra/csrf/service";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/** GET /api/auth/csrf: `{token, signed, header}` plus the double-submit cookie. */
export const GET = route({ auth: "public" }, async () => {
  const { config } = webContext();
  const csrf = issueCsrfToken(config);
  return Response.json(csrf, {
    headers: { "set-cookie": csrfCookie(config, csrf.token), "cache-control": "no-store" },
  });
});
