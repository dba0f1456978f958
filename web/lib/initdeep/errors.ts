import { HttpError } from "@svc/common";

/** The init-deep area's failures, one constructor per code. */
export const adminRequired = () =>
  new HttpError(403, "admin_required", "only an administrator can generate files on the server");
export const pathOutsideRoot = () =>
  new HttpError(400, "invalid_request", "path: must stay inside the project root");
export const pathNotADirectory = () =>
  new HttpError(400, "invalid_request", "path: not a directory of the project");
