import { z } from "zod";

/** Deepest walk a request may ask for. */
export const INIT_DEEP_MAX_DEPTH = 10;

const relativePath = z.string().max(1024, "must be at most 1024 characters");

/** `POST /api/init-deep` body; every field optional. */
export const initDeepBody = z.strictObject({
  /** A directory inside the root (default: the root itself). */
  path: relativePath.default(""),
  force: z.boolean("must be true or false").default(false),
  dryRun: z.boolean("must be true or false").default(false),
  maxDepth: z
    .number("must be a number")
    .int("must be a whole number")
    .min(0, "must be 0 or more")
    .max(INIT_DEEP_MAX_DEPTH, `must be at most ${INIT_DEEP_MAX_DEPTH}`)
    .default(5)
    .meta({ title: "Depth" }),
});
export type InitDeepInput = z.infer<typeof initDeepBody>;

/** `GET /api/init-deep` query. */
export const initDeepQuery = z.object({ path: relativePath.optional() });

export const initDeepResult = z
  .object({
    /** The directory, relative to the root (`.` for the root). */
    path: z.string(),
    /** An AGENTS.md was written (with dryRun: would be written). */
    generated: z.boolean(),
    /** It already had one and `force` was not given. */
    skipped: z.boolean(),
    error: z.string().nullable(),
  })
  .meta({ id: "InitDeepResult" });

export const initDeepAnswer = z.object({
  success: z.boolean(),
  dryRun: z.boolean(),
  summary: z.object({
    total: z.number().int(),
    generated: z.number().int(),
    skipped: z.number().int(),
    errors: z.number().int(),
  }),
  results: z.array(initDeepResult),
});
export type InitDeepAnswer = z.infer<typeof initDeepAnswer>;

export const initDeepStatus = z
  .object({
    /** The directory checked, relative to the root (`.` for the root); nothing outside it is named. */
    rootPath: z.string(),
    status: z.array(z.object({ directory: z.string(), hasAgentsMd: z.boolean(), path: z.string() })),
    allGenerated: z.boolean(),
  })
  .meta({ id: "InitDeepStatus" });
export type InitDeepStatus = z.infer<typeof initDeepStatus>;
