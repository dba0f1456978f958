import { completeAndClaimJobs } from "./completeAndClaimJobs";
import type { Queryable, QueueClock } from "./shared";

/** Marks a claimed job completed with its result. False when the claim was lost (fenced out). */
export async function completeJob(
  db: Queryable,
  clock: QueueClock,
  claim: { id: string; lockToken: string },
  result: Record<string, unknown>,
): Promise<boolean> {
  const { completed } = await completeAndClaimJobs(db, clock, [{ ...claim, result }], 0);
  return completed.has(claim.id);
}
