import type { Queryable, TaskClaim } from "./shared";

/** Most tasks claimed by one statement. */
export const CLAIM_BATCH_MAX = 10;

/**
 * How many of one user's due tasks one claim looks at, oldest first. More than one claim's worth: while
 * other schedulers' claims hold a user's oldest due tasks locked, this claim still finds the next ones.
 */
export const CLAIM_LOOKAHEAD_PER_USER = 4 * CLAIM_BATCH_MAX;

/**
 * Claims up to `limit` (at most 10) due tasks in one statement — enabled, `pending`, `next_run` reached,
 * `FOR UPDATE SKIP LOCKED` — round-robin over users: every user's oldest due task before anyone's second, so
 * one user's thousand due tasks never keep another's out of the next claim. Each becomes `running` with
 * `claimed_at = now`; the same statement reads the agent's URL, sealed token and status (scoped to the task's
 * user). Its cost follows the number of users with due tasks, not of due tasks: `owners` is a loose index
 * scan over the per-user due index, each user's turns read from it (at most CLAIM_LOOKAHEAD_PER_USER), and
 * rows are locked one by one in turn order until the claim is full: nothing is locked that is not claimed.
 */
export async function claimDueTasks(db: Queryable, now: Date, limit: number): Promise<TaskClaim[]> {
  const size = Math.min(limit, CLAIM_BATCH_MAX);
  if (!Number.isSafeInteger(size) || size < 1) return [];
  const due = (t: string) => `${t}.enabled and ${t}.status = 'pending' and ${t}.next_run <= $1`;
  const { rows } = await db.query({
    name: `scheduled_tasks_claim_${size}`,
    text: `with recursive owners(user_id) as (
        (select t.user_id from scheduled_tasks t where ${due("t")} order by t.user_id limit 1)
        union all
        select (select t.user_id from scheduled_tasks t
            where ${due("t")} and t.user_id > owners.user_id order by t.user_id limit 1)
        from owners where owners.user_id is not null
      ),
      turns as (
        select own.id, own.next_run, own.turn from owners
        cross join lateral (
          select t.id, t.next_run, row_number() over (order by t.next_run, t.id) as turn
          from scheduled_tasks t
          where t.user_id = owners.user_id and ${due("t")}
          order by t.next_run, t.id
          limit ${CLAIM_LOOKAHEAD_PER_USER}
        ) own
        order by own.turn, own.next_run, own.id
      ),
      picked as (
        select locked.id, turns.turn from turns
        cross join lateral (
          select t.id from scheduled_tasks t where t.id = turns.id and ${due("t")} for update skip locked
        ) locked
        limit ${size}
      )
      update scheduled_tasks task
      set status = 'running', claimed_at = $1, updated_at = $1
      from picked
      where task.id = picked.id
      returning task.id, task.user_id, task.agent_id, task.cron_schedule, task.prompt, task.next_run,
        task.attempts, task.max_attempts, picked.turn,
        (select json_build_object('url', agent.url, 'token', agent.gateway_token_encrypted,
            'status', agent.status) from agents agent
          where agent.id = task.agent_id and agent.user_id = task.user_id) as agent`,
    values: [now],
  });
  return rows
    .sort(
      (a, b) =>
        Number(a.turn) - Number(b.turn) ||
        a.next_run.getTime() - b.next_run.getTime() ||
        (a.id < b.id ? -1 : 1),
    )
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
    );
}
