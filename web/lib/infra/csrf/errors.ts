import { HttpError } from "@svc/common";

/** The csrf area's failures, one constructor per code. */
export const csrfFailed = () => new HttpError(403, "csrf_failed", "missing or invalid CSRF token");
