import { z } from "zod";

/** Longest message the backend's chat job accepts (`POST /api/platform-jobs/chat`). */
export const MAX_CHAT_MESSAGE_LENGTH = 32_000;

/**
 * `POST /api/gateway/chat`: `{message}` only. The legacy `sessionKey` and any other
 * field is refused, so an old client learns it is talking to the new API instead of being half-served.
 */
export const chatMessageBody = z.strictObject(
  {
    message: z
      .string({ error: (i) => (i.input === undefined ? "message is required" : "message must be a string") })
      .trim()
      .min(1, "message is required")
      .max(MAX_CHAT_MESSAGE_LENGTH, `message must be at most ${MAX_CHAT_MESSAGE_LENGTH} characters`),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys.join(", ")}` : undefined,
  },
);
export type ChatMessageBody = z.infer<typeof chatMessageBody>;
