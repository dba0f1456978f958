/** The user's platform jobs as the web shows them, and the list's query. */
import { platformJobLanes, platformJobStatuses, platformJobTypes } from "@svc/db/schema";
import { z } from "zod";

export const DEFAULT_JOB_PAGE_SIZE = 20;
export const MAX_JOB_PAGE_SIZE = 100;
const limitMessage = `limit must be a whole number from 1 to ${MAX_JOB_PAGE_SIZE}`;

const optionalQueryText = <T>(schema: z.ZodType<T, string | undefined>) =>
  z
    .string()
    .trim()
    .transform((value) => (value === "" ? undefined : value))
    .pipe(schema);

/**
 * `GET /api/jobs?limit=&cursor=&type=&status=`: `limit` 1 to 100 (default 20), `cursor` the previous page's
 * `nextCursor` (opaque; the backend checks it), optional job type and status filters.
 */
export const jobListQuery = z.strictObject(
  {
    limit: optionalQueryText(
      z
        .string()
        .regex(/^\d{1,3}$/, limitMessage)
        .refine((n) => Number(n) >= 1 && Number(n) <= MAX_JOB_PAGE_SIZE, limitMessage)
        .optional(),
    ).optional(),
    cursor: optionalQueryText(
      z.string().max(200, "cursor is not a cursor of this list").optional(),
    ).optional(),
    type: optionalQueryText(
      z.enum(platformJobTypes, { error: `type must be one of ${platformJobTypes.join(", ")}` }).optional(),
    ).optional(),
    status: optionalQueryText(
      z
        .enum(platformJobStatuses, { error: `status must be one of ${platformJobStatuses.join(", ")}` })
        .optional(),
    ).optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys.join(", ")}` : undefined,
  },
);
export type JobListQuery = z.infer<typeof jobListQuery>;

const isoTime = z.string();

/** A platform job as the API shows it: ISO times, no lock token (the backend's `toJobJson`). */
export const platformJob = z
  .object({
    id: z.string(),
    userId: z.string().nullable(),
    agentId: z.string().nullable(),
    lane: z.enum(platformJobLanes),
    jobType: z.enum(platformJobTypes),
    status: z.enum(platformJobStatuses),
    priority: z.number(),
    attempts: z.number(),
    maxAttempts: z.number(),
    runAt: isoTime,
    lockedAt: isoTime.nullable(),
    startedAt: isoTime.nullable(),
    completedAt: isoTime.nullable(),
    error: z.string().nullable(),
    result: z.record(z.string(), z.unknown()).nullable(),
    progress: z.string().nullable().meta({
      description:
        "The step the job last reported (a deploy's `installing the agent runtime 2026.4.11…`); null before its attempt reports one",
    }),
    payload: z.record(z.string(), z.unknown()),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({ id: "PlatformJob" });
export type PlatformJob = z.infer<typeof platformJob>;

/** One page of the user's jobs, newest first; `nextCursor` is null on the last page. */
export const jobPage = z.object({ jobs: z.array(platformJob), nextCursor: z.string().nullable() });
export type JobPage = z.infer<typeof jobPage>;
