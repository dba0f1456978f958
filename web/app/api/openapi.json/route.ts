export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { webOpenApiDocument } from "@/lib/infra/openapi/document";

/** GET /api/openapi.json (public): the web's OpenAPI 3.1 document. */
export const GET = route({ auth: "public" }, async () => Response.json(webOpenApiDocument()));
