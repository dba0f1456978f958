import type { Database } from "@svc/db";
import { agents } from "@svc/db/schema";
import { desc, eq } from "drizzle-orm";
import { z } from "zod";

/** An agent as the dashboard's forms offer it (a file's, a task's or a wallet's agent). */
export const agentChoice = z.object({ id: z.string(), name: z.string() });
export type AgentChoice = z.infer<typeof agentChoice>;

/** The user's agents, newest first: the choices of the dashboard's forms (read by the pages on the server). */
export async function agentChoicesOf(db: Database, userId: string): Promise<AgentChoice[]> {
  return db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(eq(agents.userId, userId))
    .orderBy(desc(agents.createdAt), desc(agents.id));
}
