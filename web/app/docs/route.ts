export const dynamic = "force-dynamic";

import { docsHtml } from "@/lib/openapi/viewer";

/** GET /docs (public): the web's API description rendered by Swagger UI, served from this app. */
export function GET(): Response {
  return new Response(docsHtml(), { headers: { "content-type": "text/html; charset=utf-8" } });
}
