export const dynamic = "force-dynamic";

import { errorResponse } from "@/lib/infra/http/errors";
import { docsAsset } from "@/lib/infra/openapi/viewer";

/** GET /docs/assets/{file} (public): the viewer's scripts and styles from swagger-ui-dist; else 404. */
export async function GET(
  _request: Request,
  { params }: { params: Promise<{ file: string }> },
): Promise<Response> {
  const asset = await docsAsset((await params).file);
  if (!asset) return errorResponse(404, "not_found", "no such file");
  return new Response(asset.body, {
    headers: { "content-type": asset.contentType, "cache-control": "public, max-age=3600" },
  });
}
