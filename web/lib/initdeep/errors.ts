import { HttpError } from "@svc/common";

/** The init-deep area's failures, one constructor per code. */
export const adminRequired = () =>
  new HttpError(403, "ADMIN_REQUIRED", "only an administrator can generate files on the server");
/** Decided on the text of the path alone (absolute, or `..` leaving the root): nothing on disk is looked at. */
export const pathOutsideRoot = () =>
  new HttpError(400, "invalid_request", "Path must stay inside the project root", { field: "path" });
/**
 * Missing, not a directory, or resolving outside the root through a symbolic link: one answer for all, so
 * a caller cannot tell whether something exists outside the root.
 */
export const pathNotADirectory = () =>
  new HttpError(400, "invalid_request", "Path is not a directory inside the project root", { field: "path" });
