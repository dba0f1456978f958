import { z } from "zod";

/** `POST /api/validate-key` body: `{key}` (a string; any string, a malformed one is simply not valid). */
export const validateKeyBody = z.strictObject({
  key: z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }),
});

export type ValidateKeyInput = z.infer<typeof validateKeyBody>;
