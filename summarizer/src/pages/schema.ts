import { z } from "zod";

/** Body of `POST /api/summarize` and `POST /api/extract`. */
export const pageRequestSchema = z.object(
  {
    url: z
      .string({
        error: (issue) => (issue.input === undefined ? "url is required" : "url must be a string"),
      })
      .trim()
      .min(1, "url is required")
      .max(8192, "url is longer than 8192 characters"),
  },
  { error: "request body must be a JSON object" },
);

export type PageRequest = z.infer<typeof pageRequestSchema>;
