import { HttpError } from "@svc/common";

/** The jobs area's failures, one constructor per code. */
export const unexpectedBackendAnswer = () =>
  new HttpError(502, "backend_error", "the backend's answer has an unexpected shape");
export const backendAnswered = (status: number) =>
  new HttpError(502, "backend_error", `the backend answered ${status}`);
/** The backend's 400 (a cursor it does not know) passes through with its message. */
export const invalidListQuery = (message = "invalid request") =>
  new HttpError(400, "invalid_request", message);
