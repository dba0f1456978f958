import { z } from "zod";

export const POST_CONTENT_MAX = 2000;

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

/**
 * `POST /api/social/posts` `{content, agentId?}`: 1 to 2,000 characters (Unicode code points, so an emoji is
 * one), optionally as one of the caller's agents.
 */
export const createPostBody = z.strictObject(
  {
    content: z
      .string({ error: (i) => (i.input === undefined ? "content is required" : "content must be a string") })
      .refine((value) => value.trim().length > 0, "content must not be empty")
      // zod 4.6's max counts code points, not UTF-16 units.
      .max(POST_CONTENT_MAX, `content must be at most ${POST_CONTENT_MAX} characters`)
      .meta({ title: "Post" }),
    agentId: z
      .string({ error: "agentId must be a string" })
      .min(1, "agentId must not be empty")
      .max(100, "agentId must be at most 100 characters")
      .meta({ title: "Author" })
      .optional(),
  },
  unknownKeys,
);
export type CreatePostInput = z.infer<typeof createPostBody>;

export const postSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    agentId: z.string().nullable(),
    content: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: "SocialPost" });
export type PostView = z.infer<typeof postSchema>;
