import { z } from "zod";

/** Longest key name, counted after trimming. */
export const API_KEY_NAME_MAX = 64;

/** `POST /api/keys` body: `{name}`, 1 to 64 characters after trimming; unknown fields are refused. */
export const createApiKeyBody = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
    .trim()
    .min(1, "must not be empty")
    .max(API_KEY_NAME_MAX, `must be at most ${API_KEY_NAME_MAX} characters`)
    .meta({ title: "Key name" }),
});

export type CreateApiKeyInput = z.infer<typeof createApiKeyBody>;
