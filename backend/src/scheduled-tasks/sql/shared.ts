/**
 * What the scheduler's statements share; each operation is its own file beside this one (the job queue's
 * `src/sql/` shape). Every time is a parameter from the scheduler's injectable clock. An outcome is fenced
 * by the claim: the task must still be `running` with the `claimed_at` of this claim, so a worker whose
 * claim was recovered as stale (and claimed again by someone else) can no longer change the task.
 */
import type pg from "pg";

export type Queryable = Pick<pg.Pool, "query">;

/** A task a scheduler claimed: what its dispatch and its outcome need. */
export interface TaskClaim {
  id: string;
  userId: string;
  agentId: string;
  cronSchedule: string;
  prompt: string;
  /** The occurrence this dispatch serves (the task's `next_run` when claimed). */
  scheduledAt: Date;
  /** When it was claimed: also the claim's fence. */
  claimedAt: Date;
  attempts: number;
  maxAttempts: number;
  /** The agent's row as claimed (stored URL, sealed gateway token, status); undefined when it is gone. */
  agent: { url: string | null; token: string | null; status: string } | undefined;
}

/** The fence of a claim: the task is still running under this claim. */
export const CLAIM_FENCE = "id = $1 and status = 'running' and claimed_at = $2";
