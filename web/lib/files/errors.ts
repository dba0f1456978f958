import { HttpError } from "@svc/common";

import { formatBytes } from "./sizes";

/** The files area's failures, one constructor per code (spec "Errors", Files). */
export const fileNotFound = () => new HttpError(404, "not_found", "file not found");
export const fileRequired = () => new HttpError(400, "invalid_request", "file: is required");
export const agentIdRequired = () => new HttpError(400, "invalid_request", "agentId: is required");
export const notMultipart = () =>
  new HttpError(400, "bad_content_type", "Content-Type must be multipart/form-data with a boundary");
export const malformedMultipart = (reason: string) =>
  new HttpError(400, "invalid_request", `malformed multipart body: ${reason}`);
export const unknownField = (name: string) =>
  new HttpError(400, "invalid_request", `${name}: unknown field (send only file and agentId)`);
export const oneFileOnly = () => new HttpError(400, "invalid_request", "file: send one file per upload");
export const fieldTooLong = (name: string) => new HttpError(400, "invalid_request", `${name}: is too long`);
export const fieldTwice = (name: string) =>
  new HttpError(400, "invalid_request", `${name}: sent more than once`);
export const pathOutsideStorage = () =>
  new HttpError(403, "path_outside_storage", "the file's path lies outside the upload directory");
export const fileTooLarge = (maxBytes: number) =>
  new HttpError(413, "file_too_large", `file exceeds the ${formatBytes(maxBytes)} upload limit`, {
    maxBytes,
  });
export const storageLimitExceeded = (quotaBytes: number, usedBytes: number) =>
  new HttpError(
    413,
    "storage_limit_exceeded",
    `storage limit exceeded: ${formatBytes(usedBytes)} of your ${formatBytes(quotaBytes)} are used`,
    { quotaBytes, usedBytes },
  );
