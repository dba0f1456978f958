import type { Database } from "@svc/db";
import { agents } from "@svc/db/schema";
import { desc, eq } from "drizzle-orm";

/** An agent a file may be attached to, as the dashboard's upload form lists it. */
export interface AgentChoice {
  id: string;
  name: string;
}

/** The user's agents (a file is uploaded to one of them), newest first. */
export async function agentChoicesOf(db: Database, userId: string): Promise<AgentChoice[]> {
  return db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(eq(agents.userId, userId))
    .orderBy(desc(agents.createdAt), desc(agents.id));
}
