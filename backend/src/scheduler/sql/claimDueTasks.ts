import type { Queryable, TaskClaim } from "./shared";

/** Spec "Limits": tasks claimed by one statement. */
export const CLAIM_BATCH_MAX = 10;

/**
 * Claims up to `limit` (at most 10) due tasks in one statement: enabled, `pending`, `next_run` reached,
 * oldest `next_run` first, `FOR UPDATE SKIP LOCKED` (served by the partial due index), so two schedulers
 * never claim the same task. Each becomes `running` with `claimed_at = now`. The same statement reads the
 * agent's stored URL, sealed gateway token and status (scoped to the task's user) for the dispatch.
 */
export async function claimDueTasks(db: Queryable, now: Date, limit: number): Promise<TaskClaim[]> {
  const size = Math.min(limit, CLAIM_BATCH_MAX);
  if (!Number.isSafeInteger(size) || size < 1) return [];
  const { rows } = await db.query({
    name: `scheduled_tasks_claim_${size}`,
    text: `with due as (
        select id from scheduled_tasks
        where enabled and status = 'pending' and next_run <= $1
        order by next_run
        limit ${size}
        for update skip locked
      )
      update scheduled_tasks task
      set status = 'running', claimed_at = $1, updated_at = $1
      where task.id = any(array(select id from due))
      returning task.id, task.user_id, task.agent_id, task.cron_schedule, task.prompt, task.next_run,
        task.attempts, task.max_attempts,
        (select json_build_object('url', agent.url, 'token', agent.gateway_token_encrypted,
            'status', agent.status) from agents agent
          where agent.id = task.agent_id and agent.user_id = task.user_id) as agent`,
    values: [now],
  });
  return rows
    .map(
      (row): TaskClaim => ({
        id: row.id,
        userId: row.user_id,
        agentId: row.agent_id,
        cronSchedule: row.cron_schedule,
        prompt: row.prompt,
        scheduledAt: row.next_run,
        claimedAt: now,
        attempts: row.attempts,
        maxAttempts: row.max_attempts,
        agent: row.agent ?? undefined,
      }),
    )
    .sort((a, b) => a.scheduledAt.getTime() - b.scheduledAt.getTime());
}
