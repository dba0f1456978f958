import { text } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { agents } from "./agents";

/** The user and the agent a row belongs to; deleting either deletes the row. */
export function ownerColumns() {
  return {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
  };
}
