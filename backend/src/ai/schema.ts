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
 * `POST /api/ai/chat` body: an OpenAI-compatible chat completion request. `model` and a non-empty
 * `messages` are required, `stream` is an optional boolean, every other field goes to the provider as sent.
 */
export const chatCompletionBody = z.looseObject({
  model: z.string({ error: required("a string") }).min(1, "must not be empty"),
  messages: z
    .array(chatMessage, { error: required("an array of messages") })
    .min(1, "must contain at least one message"),
  stream: z.boolean({ error: "must be a boolean" }).optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionBody>;

/** `POST /api/ai/gateway` body (the v1 gateway's AI plugins): a chat completion whose `model` may be left out. */
export const gatewayCompletionBody = chatCompletionBody.extend({
  model: z.string({ error: "must be a string" }).min(1, "must not be empty").optional(),
});
