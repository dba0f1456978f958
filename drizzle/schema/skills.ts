import { index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { timestamptz } from "./columns";

/** A tool as the skill's MCP server listed it at activation. */
export interface SkillToolRecord {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

// A user's active skill MCP servers: kept in PostgreSQL so any web process serves
// the later calls. Expired after 30 idle minutes (`last_used_at`), at most 10 per user (the service keeps it).
export const skillActivations = pgTable(
  "skill_activations",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    skillId: text("skill_id").notNull(),
    /** The server's own name and version (from its initialize answer). */
    serverName: text("server_name").notNull(),
    serverVersion: text("server_version").notNull(),
    tools: jsonb("tools").$type<SkillToolRecord[]>().notNull(),
    startedAt: timestamptz("started_at").notNull(),
    lastUsedAt: timestamptz("last_used_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.skillId] }),
    // Least recently used first, per user (the 10-per-user limit and expiry).
    index("skill_activations_user_last_used_idx").on(t.userId, t.lastUsedAt),
  ],
);
export type SkillActivation = typeof skillActivations.$inferSelect;
