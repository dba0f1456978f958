import { z } from "zod";

export const ADMIN_LIST_DEFAULT_LIMIT = 100;
export const ADMIN_LIST_MAX_LIMIT = 500;
const MAX_OFFSET = 2_147_483_647;

/** A query parameter holding a whole number in [min, max] (a repeated parameter is an array: rejected). */
function wholeNumber(min: number, max: number) {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string({ error: message })
    .regex(/^\d{1,10}$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);
}

/** `GET /api/admin/users` and `GET /api/admin/agents` query: `?limit=` 1-500 (default 100), `?offset=` >= 0. */
export const adminListQuery = z.strictObject({
  limit: wholeNumber(1, ADMIN_LIST_MAX_LIMIT).default(ADMIN_LIST_DEFAULT_LIMIT),
  offset: wholeNumber(0, MAX_OFFSET).default(0),
});

export type AdminListQuery = z.infer<typeof adminListQuery>;
