import { buddyTypes } from "@svc/db/schema";
import { z } from "zod";

/** Buddies per user, name length, the energy training needs. */
export const BUDDY_LIMIT = 20;
export const BUDDY_NAME_MAX = 30;
export const TRAIN_ENERGY_MIN = 30;

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

/**
 * A buddy name: 1 to 30 characters after trimming. zod 4.6 measures strings in Unicode code points (an emoji is
 * one), as PostgreSQL's `varchar(30)` does.
 */
const buddyName = (field: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .trim()
    .min(1, `${field} must not be empty`)
    .max(BUDDY_NAME_MAX, `${field} must be at most ${BUDDY_NAME_MAX} characters`);

/** `newName` beside feed, play or train (a client may send the form's field with every action): ignored. */
const ignoredNewName = z.string({ error: "newName must be a string or null" }).nullable().optional();

/** `POST /api/buddies` `{name, type}`. */
export const createBuddyBody = z.strictObject(
  {
    name: buddyName("name"),
    type: z
      .enum(buddyTypes, {
        error: (i) =>
          i.input === undefined ? "type is required" : `type must be one of ${buddyTypes.join(", ")}`,
      })
      .meta({ title: "Kind" }),
  },
  unknownKeys,
);
export type CreateBuddyInput = z.infer<typeof createBuddyBody>;

/** `PATCH /api/buddies/{buddyId}`: one action; `rename` carries `newName`, the others may and ignore it. */
export const buddyActionBody = z.discriminatedUnion(
  "action",
  [
    z.strictObject({ action: z.literal("feed"), newName: ignoredNewName }, unknownKeys),
    z.strictObject({ action: z.literal("play"), newName: ignoredNewName }, unknownKeys),
    z.strictObject({ action: z.literal("train"), newName: ignoredNewName }, unknownKeys),
    z.strictObject({ action: z.literal("rename"), newName: buddyName("newName") }, unknownKeys),
  ],
  { error: () => "action must be feed, play, train or rename" },
);
export type BuddyAction = z.infer<typeof buddyActionBody>;

export const buddySchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    name: z.string(),
    type: z.enum(buddyTypes),
    level: z.number().int(),
    xp: z.number().int(),
    energy: z.number().int(),
    happiness: z.number().int(),
    lastFed: z.string(),
    lastPlayed: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "Buddy" });
export type BuddyView = z.infer<typeof buddySchema>;
