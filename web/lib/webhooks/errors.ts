import { HttpError } from "@svc/common";

/** The webhooks area's failures, one constructor per code. */
export const webhookNotConfigured = () =>
  new HttpError(503, "webhook_not_configured", "hosting webhook is not configured");
export const secretInUrl = () =>
  new HttpError(401, "unauthorized", "send the webhook secret in a header, not in the URL");
export const unauthorized = () => new HttpError(401, "unauthorized", "missing or invalid webhook secret");
