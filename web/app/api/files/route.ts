import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { deleteFileBody, filesQuery } from "@/lib/files/inputs";
import {
  deleteFile,
  downloadHeaders,
  filesDeps,
  listFiles,
  openDownload,
  uploadFile,
} from "@/lib/files/service";
import { webContext } from "@/lib/infra/context";
import { parseWith, readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

const noStore = { "cache-control": "no-store" };

/** GET /api/files?download=<id> (session): the uploader's file, streamed; else `{files, totalSize, count}` (`?agentId=`). */
export const GET = route({ auth: { area: "files", access: "read" } }, async (request: Request) => {
  const deps = filesDeps(webContext());
  const user = await requireSessionUser(deps, request);
  const query = parseWith(filesQuery, Object.fromEntries(new URL(request.url).searchParams));
  if (query.download === undefined) {
    return Response.json(await listFiles(deps, user.id, query.agentId), { headers: noStore });
  }
  const { file, body } = await openDownload(deps, user.id, query.download);
  return new Response(Readable.toWeb(body) as ReadableStream, { headers: downloadHeaders(file) });
});

/**
 * POST /api/files (session), multipart `file` + `agentId`: 201 `{success: true, file}`. The body is streamed
 * to storage through busboy under FILE_MAX_BYTES and the quota, not read whole by lib/infra/http/body.ts.
 */
export const POST = route({ auth: { area: "files", access: "write" } }, async (request: Request) => {
  const deps = filesDeps(webContext());
  const user = await requireSessionUser(deps, request);
  const length = Number(request.headers.get("content-length") ?? Number.NaN);
  const file = await uploadFile(deps, user.id, {
    contentType: request.headers.get("content-type") ?? "",
    contentLength: Number.isSafeInteger(length) && length >= 0 ? length : undefined,
    body: request.body ? Readable.fromWeb(request.body as NodeReadableStream) : Readable.from([]),
  });
  return Response.json({ success: true, file }, { status: 201, headers: noStore });
});

/** DELETE /api/files (session) `{fileId}`: `{success: true, fileId}`; the stored bytes are removed too. */
export const DELETE = route({ auth: { area: "files", access: "write" } }, async (request: Request) => {
  const deps = filesDeps(webContext());
  const user = await requireSessionUser(deps, request);
  const { fileId } = await readJson(request, deleteFileBody);
  return Response.json(await deleteFile(deps, user.id, fileId), { headers: noStore });
});
