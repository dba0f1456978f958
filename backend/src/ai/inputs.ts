import { z } from "zod";

/** `developer` is what OpenAI's reasoning models take instead of `system` (OpenClaw sends it for them). */
export const chatRoles = ["system", "developer", "user", "assistant", "tool"] as const;

const required = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? "is required" : `must be ${what}`;

/** One chat message: `content` is text, content parts, or null (an assistant turn that only calls tools). */
const chatMessage = z
  .looseObject({
    role: z.enum(chatRoles, { error: required(`one of ${chatRoles.join(", ")}`) }),
    content: z
      .union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()], {
        error: "must be a string, an array of content parts, or null",
      })
      .optional(),
  })
  .refine((message) => message.content !== undefined || message.role === "assistant", {
    message: "is required",
    path: ["content"],
  });

/**
 * `POST /api/ai/chat` body: an OpenAI-compatible chat completion request. A non-empty `messages` is required,
 * `model` may be left out (AI_DEFAULT_MODEL is asked for then), `stream` is an optional boolean, every other
 * field goes to the provider as sent.
 */
export const chatCompletionBody = z.looseObject({
  model: z
    .string({ error: "must be a string" })
    .min(1, "must not be empty")
    .optional()
    .meta({ description: "default: the platform's AI_DEFAULT_MODEL" }),
  messages: z
    .array(chatMessage, { error: required("an array of messages") })
    .min(1, "must contain at least one message"),
  stream: z.boolean({ error: "must be a boolean" }).optional(),
});

/** A chat completion as the provider is asked for it: its model named. */
export type ChatCompletionRequest = z.infer<typeof chatCompletionBody> & { model: string };
