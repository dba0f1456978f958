import { HttpError } from "@svc/common";

/** The permissions area's failures, one constructor per code. */
export const notConfigured = () =>
  new HttpError(503, "not_configured", "HMAC_SECRET or INTERNAL_API_KEY is not configured");
export const unexpectedBackendAnswer = () =>
  new HttpError(502, "backend_error", "the backend's answer has an unexpected shape");
export const backendAnswered = (status: number) =>
  new HttpError(502, "backend_error", `the backend answered ${status}`);
/** The backend's 400 and 404 pass through with its own code and message; these when it gave none. */
export const invalidRequest = (code = "invalid_request", message = "invalid request") =>
  new HttpError(400, code, message);
export const requestNotFound = (code = "not_found", message = "permission request not found") =>
  new HttpError(404, code, message);
