/** The query parameters of a paged list: `limit`, and `cursor`, the previous page's `nextCursor`. */
import { z } from "zod";

/** `?limit=`: a whole number from 1 to `max` (at most 999); absent, the route takes its default. */
export function pageLimit(max: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z
    .string({ error: message })
    .regex(/^\d{1,3}$/, message)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, message)
    .optional();
}

/** `?cursor=`: the position `decode` reads from an opaque cursor (null: not a cursor of this list). */
export function pageCursor<Position>(decode: (text: string) => Position | null) {
  return z
    .string({ error: "must be a single string" })
    .transform((text, ctx) => {
      const position = decode(text);
      if (position === null) {
        ctx.addIssue({ code: "custom", message: "is not a cursor of this list" });
        return z.NEVER;
      }
      return position;
    })
    .optional();
}
