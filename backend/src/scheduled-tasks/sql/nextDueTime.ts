import type { Queryable } from "./shared";

/** The earliest `next_run` of an enabled pending task (the first entry of the partial due index), or null. */
export async function nextDueTime(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query({
    name: "scheduled_tasks_next_due",
    text: "select min(next_run) as next from scheduled_tasks where enabled and status = 'pending'",
  });
  return rows[0]?.next ?? null;
}
