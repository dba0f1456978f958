import { API_SCOPES, type ApiScope, isApiScope, normalizeScopes } from "@svc/common/api-scopes";
import { z } from "zod";

/** Longest key name, counted after trimming. */
export const API_KEY_NAME_MAX = 64;
/** Longest lifetime a key can be given; a key may also never expire. */
export const API_KEY_MAX_DAYS = 365;

/**
 * `POST /api/keys` body: `{name, scopes, expiresInDays?}`. `name` 1 to 64 characters after trimming;
 * `scopes` at least one of `all`, `<area>:read`, `<area>:write` (stored normalized: `all` alone, else each
 * area once at its highest access); `expiresInDays` 1 to 365, or null / absent for a key that does not
 * expire. Unknown fields are refused.
 */
export const createApiKeyBody = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "must not be empty")
    .max(API_KEY_NAME_MAX, `must be at most ${API_KEY_NAME_MAX} characters`)
    .meta({ title: "Key name" }),
  scopes: z
    .array(
      z.string().refine(isApiScope, {
        error: (issue) =>
          `has an unknown scope ${JSON.stringify(issue.input)}: use all, <area>:read or <area>:write`,
      }),
      {
        error: (issue) =>
          issue.input === undefined ? "is required" : `must be a list such as ["files:read", "jobs:write"]`,
      },
    )
    .min(1, "must name at least one scope")
    .max(API_SCOPES.length, `must list at most ${API_SCOPES.length} scopes`)
    .transform((scopes) => normalizeScopes(scopes as ApiScope[]))
    .meta({ title: "Scope list" }),
  expiresInDays: z
    .number({ error: "must be a whole number of days, or null for a key that does not expire" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1 day")
    .max(API_KEY_MAX_DAYS, `must be at most ${API_KEY_MAX_DAYS} days`)
    .nullable()
    .optional()
    .meta({ title: "Expires in" }),
});
