export const dynamic = "force-dynamic";

import { nonceOf } from "@/lib/infra/http/security-headers";
import { docsHtml } from "@/lib/infra/openapi/viewer";

/** GET /docs (public): the web's API description rendered by Swagger UI, served from this app. */
export function GET(request: Request): Response {
  return new Response(docsHtml(nonceOf(request)), {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}
