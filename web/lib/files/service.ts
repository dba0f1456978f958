import type { Readable } from "node:stream";
import { isHttpError, newId } from "@svc/common";
import { type FileRecord, files } from "@svc/db/schema";
import { and, desc, eq } from "drizzle-orm";
import { requireUserAgent } from "../agents/service";
import type { WebContext } from "../infra/context";
import { agentIdRequired, fileNotFound, fileRequired, fileTooLarge, storageLimitExceeded } from "./errors";
import type { FileList, FileQuota, FileView, UploadedFile } from "./inputs";
import { downloadedBytesCounter, refusedUploadsCounter, uploadedBytesCounter } from "./metrics";
import { receiveMultipart, UploadCutOff } from "./multipart";
import {
  fileQuotaOf,
  type Reservation,
  releaseReservation,
  reserveUploadQuota,
  settleReservation,
} from "./quota";
import { DEFAULT_MIME_TYPE, sanitizeFilename, sanitizeMimeType } from "./sanitize";
import { type FileStorage, fileStorage } from "./storage";

/** What the files service needs: the web context and the configured storage. */
export type FilesDeps = WebContext & { storage: FileStorage };

export const downloadUrl = (id: string) => `/api/files?download=${encodeURIComponent(id)}`;

function view(row: FileRecord): FileView {
  return {
    id: row.id,
    filename: row.filename,
    url: downloadUrl(row.id),
    size: row.size,
    mimeType: row.mimeType,
    agentId: row.agentId,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The user's files (one agent's with `agentId`), newest first, with their total size. An `agentId` that is
 * not one of the user's agents is 404 "agent not found", as on upload and in scheduled tasks.
 */
export async function listFiles(deps: FilesDeps, userId: string, agentId?: string): Promise<FileList> {
  if (agentId !== undefined) await requireUserAgent(deps, userId, agentId);
  const rows = await deps.db
    .select()
    .from(files)
    .where(and(eq(files.userId, userId), agentId !== undefined ? eq(files.agentId, agentId) : undefined))
    .orderBy(desc(files.createdAt), desc(files.id));
  const list = rows.map(view);
  return { files: list, totalSize: list.reduce((sum, f) => sum + f.size, 0), count: list.length };
}

/** The user's quota, what it holds, and the largest upload (the dashboard shows them). */
export async function fileQuota(deps: FilesDeps, userId: string): Promise<FileQuota> {
  return { ...(await fileQuotaOf(deps, userId)), maxFileBytes: deps.config.FILE_MAX_BYTES };
}

export interface UploadRequest {
  contentType: string;
  /** The request's Content-Length: the file cannot be longer, so no more quota is reserved. */
  contentLength?: number;
  body: Readable;
}

/**
 * Uploads one file (multipart `file` + `agentId`). Quota is reserved first (see quota.ts); the bytes go to
 * storage under the new file's id as they arrive, and the upload is cut off with 413 as soon as it passes
 * FILE_MAX_BYTES or the quota left. The row is written only after the bytes are stored; any failure
 * removes the stored object and the reservation, so a refused upload leaves nothing behind.
 */
export async function uploadFile(
  deps: FilesDeps,
  userId: string,
  upload: UploadRequest,
): Promise<UploadedFile> {
  const id = newId("file");
  let reservation: Reservation | undefined;
  let storing = false;
  try {
    reservation = await reserveUploadQuota(deps, userId, id, upload.contentLength);
    const { fields, file } = await receiveMultipart({
      contentType: upload.contentType,
      body: upload.body,
      fileField: "file",
      textFields: ["agentId"],
      maxFileBytes: reservation.bytes,
      async storeFile(stream, part, fieldsSoFar) {
        // The agent is known before the file (as the dashboard sends them): refuse before storing anything.
        const agentId = fieldsSoFar.get("agentId")?.trim();
        if (agentId) await requireUserAgent(deps, userId, agentId);
        storing = true;
        await deps.storage.put(id, stream, sanitizeMimeType(part.contentType));
      },
    });
    // A browser form with no file chosen sends an empty part with an empty name.
    if (!file || (file.filename === "" && file.size === 0)) throw fileRequired();
    const agentId = fields.get("agentId")?.trim();
    if (!agentId) throw agentIdRequired();
    await requireUserAgent(deps, userId, agentId);
    const now = deps.clock.now();
    const row = await deps.db.transaction(async (tx) => {
      await settleReservation(tx, userId, id, file.size, now, deps.config);
      const [inserted] = await tx
        .insert(files)
        .values({
          id,
          userId,
          agentId,
          filename: sanitizeFilename(file.filename, now),
          storagePath: id,
          size: file.size,
          mimeType: sanitizeMimeType(file.contentType),
          createdAt: now,
        })
        .returning();
      return inserted;
    });
    uploadedBytesCounter().inc(row.size);
    return {
      id: row.id,
      name: row.filename,
      size: row.size,
      type: row.mimeType,
      url: downloadUrl(row.id),
      uploaded: row.createdAt.toISOString(),
    };
  } catch (err) {
    if (storing)
      await deps.storage
        .remove(id)
        .catch((e: unknown) => deps.logger.error({ err: e, id }, "file cleanup failed"));
    const refusal =
      err instanceof UploadCutOff && reservation
        ? reservation.limitedByQuota
          ? storageLimitExceeded(reservation.quotaBytes, reservation.usedBytes, err.filename)
          : fileTooLarge(deps.config.FILE_MAX_BYTES, err.filename)
        : err;
    if (isHttpError(refusal) && refusal.status === 413) refusedUploadsCounter().inc({ reason: refusal.code });
    throw refusal;
  } finally {
    await releaseReservation(deps, id);
  }
}

/** One of the user's files: 404 for an unknown id or another user's file. */
async function ownFile(deps: FilesDeps, userId: string, fileId: string): Promise<FileRecord> {
  const [row] = await deps.db
    .select()
    .from(files)
    .where(and(eq(files.id, fileId), eq(files.userId, userId)))
    .limit(1);
  if (!row) throw fileNotFound();
  return row;
}

export interface FileDownload {
  file: FileView;
  body: Readable;
}

/**
 * The uploader's file, streamed from storage: 404 for another user's file or missing bytes, 403 when its
 * stored path resolves outside the storage root.
 */
export async function openDownload(deps: FilesDeps, userId: string, fileId: string): Promise<FileDownload> {
  const row = await ownFile(deps, userId, fileId);
  const body = await deps.storage.open(row.storagePath);
  if (!body) throw fileNotFound();
  body.once("end", () => downloadedBytesCounter().inc(row.size));
  return { file: view(row), body };
}

/** Deletes the uploader's file and its stored bytes; 404 for another user's file. */
export async function deleteFile(
  deps: FilesDeps,
  userId: string,
  fileId: string,
): Promise<{ success: true; fileId: string }> {
  const row = await ownFile(deps, userId, fileId);
  // Bytes first: a failure leaves the row (and the user can retry) rather than unreachable bytes.
  await deps.storage.remove(row.storagePath);
  await deps.db.delete(files).where(and(eq(files.id, row.id), eq(files.userId, userId)));
  return { success: true, fileId: row.id };
}

/** The web context with the storage its configuration names. */
export function filesDeps(ctx: WebContext): FilesDeps {
  return { ...ctx, storage: fileStorage(ctx.config) };
}

/** Content-Type, Content-Disposition and Content-Length of a download, plus no caching and no sniffing of user-supplied bytes. */
export function downloadHeaders(file: FileView): Record<string, string> {
  return {
    "content-type": file.mimeType || DEFAULT_MIME_TYPE,
    "content-disposition": `attachment; filename=${encodeURIComponent(file.filename)}`,
    "content-length": String(file.size),
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  };
}
