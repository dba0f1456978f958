import { HttpError } from "@svc/common";

/**
 * The rate-limit area's failure: 429 `too many <what>; try again later`, with `retryAfterSeconds` in the
 * body (and the `Retry-After` header where the route sets it).
 */
export const rateLimited = (what: string, retryAfterSeconds: number) =>
  new HttpError(429, "rate_limited", `too many ${what}; try again later`, { retryAfterSeconds });
