import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, varchar } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { createdAt, timestamptz, updatedAt } from "./columns";

export const buddyTypes = ["crab", "robot", "ghost", "dragon", "alien"] as const;
export type BuddyType = (typeof buddyTypes)[number];

// Virtual pets (20 per user, counted by the service).
export const buddies = pgTable(
  "buddies",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: varchar("name", { length: 30 }).notNull(),
    type: text("type").$type<BuddyType>().notNull(),
    level: integer("level").notNull().default(1),
    xp: integer("xp").notNull().default(0),
    energy: integer("energy").notNull().default(50),
    happiness: integer("happiness").notNull().default(50),
    lastFed: timestamptz("last_fed").notNull().defaultNow(),
    lastPlayed: timestamptz("last_played").notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("buddies_type", sql`${t.type} in ('crab', 'robot', 'ghost', 'dragon', 'alien')`),
    check("buddies_name_not_empty", sql`char_length(${t.name}) >= 1`),
    check("buddies_energy_range", sql`${t.energy} between 0 and 100`),
    check("buddies_happiness_range", sql`${t.happiness} between 0 and 100`),
    check("buddies_level_min", sql`${t.level} >= 1`),
    check("buddies_xp_non_negative", sql`${t.xp} >= 0`),
    // List oldest first, and the per-user count.
    index("buddies_user_id_created_at_idx").on(t.userId, t.createdAt),
  ],
);
export type Buddy = typeof buddies.$inferSelect;
export type NewBuddy = typeof buddies.$inferInsert;
