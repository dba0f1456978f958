import { HttpError } from "@svc/common";

/** The apikeys area's failures, one constructor per code. */
export const apiKeyNotFound = () => new HttpError(404, "not_found", "API key not found");
export const unauthorized = () =>
  new HttpError(401, "unauthorized", "sign in or send a valid API key as a Bearer token");
export const apiKeyLimit = (limit: number) =>
  new HttpError(429, "api_key_limit", `at most ${limit} API keys per account`);
