import { HttpError } from "@svc/common";

import { wordsOf } from "../infra/http/field-names";
import { formatBytes } from "./sizes";

/** The files area's failures, one constructor per code. */
export const fileNotFound = () => new HttpError(404, "not_found", "file not found");
export const fileRequired = () =>
  new HttpError(400, "invalid_request", "File is required", { field: "file" });
export const agentIdRequired = () =>
  new HttpError(400, "invalid_request", "Agent is required", { field: "agentId" });
export const notMultipart = () =>
  new HttpError(400, "bad_content_type", "Content-Type must be multipart/form-data with a boundary");
export const malformedMultipart = (reason: string) =>
  new HttpError(400, "invalid_request", `malformed multipart body: ${reason}`);
export const unknownField = (name: string) =>
  new HttpError(400, "invalid_request", `unknown field: ${name} (send only file and agentId)`);
export const oneFileOnly = () =>
  new HttpError(400, "invalid_request", "File: send one file per upload", { field: "file" });
export const fieldTooLong = (name: string, maxBytes: number) =>
  new HttpError(400, "invalid_request", `${wordsOf(name)} must be at most ${maxBytes} bytes`, {
    field: name,
  });
export const fieldTwice = (name: string) =>
  new HttpError(400, "invalid_request", `${wordsOf(name)} was sent more than once`, { field: name });
export const pathOutsideStorage = () =>
  new HttpError(403, "path_outside_storage", "the file's path lies outside the upload directory");
/** The file is bigger than one upload may be (FILE_MAX_BYTES), whatever room is left. */
export const fileTooLarge = (maxBytes: number, filename: string) =>
  new HttpError(
    413,
    "file_too_large",
    `“${filename}” is bigger than the per-file limit of ${formatBytes(maxBytes)}`,
    { maxBytes, filename, field: "file" },
  );
/** The file is bigger than the room left in the user's storage (it would pass the per-file limit). */
export const storageLimitExceeded = (quotaBytes: number, usedBytes: number, filename?: string) => {
  const free = formatBytes(Math.max(0, quotaBytes - usedBytes));
  const room = `${free} free of your ${formatBytes(quotaBytes)}`;
  return new HttpError(
    413,
    "storage_limit_exceeded",
    filename ? `“${filename}” is bigger than the free space left: ${room}` : `your storage is full: ${room}`,
    { quotaBytes, usedBytes, ...(filename ? { filename, field: "file" } : {}) },
  );
};
