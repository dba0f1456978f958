import { HttpError } from "@svc/common";
import { HostingError } from "./types";

export const hostingNotConfigured = (message: string) =>
  new HttpError(503, "hosting_not_configured", message);

/**
 * Maps a hosting failure to the client-visible error of the lifecycle operations: the platform
 * cannot be resolved (missing credentials or ids) → 503, no such service → 404 (a runtime instance; the
 * lifecycle operations' own lookup answers 503 `service_unresolved`), the action itself failed →
 * 500. Anything that is not a HostingError is returned unchanged.
 */
export function hostingHttpError(err: unknown): unknown {
  if (!(err instanceof HostingError)) return err;
  switch (err.reason) {
    case "not_configured":
      return hostingNotConfigured(err.message);
    case "not_found":
      return new HttpError(404, "not_found", err.message);
    default:
      return new HttpError(500, "hosting_failed", err.message);
  }
}
