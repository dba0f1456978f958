import { ConfigError, positiveInt } from "@svc/common";
import { readPlanValues, valueOfPlan } from "../infra/config/plans";

/** The longest minimum interval a plan may have: the rule is read within a day (shortestCronIntervalSeconds). */
export const TASK_MIN_INTERVAL_MAX_SECONDS = 24 * 60 * 60;

/** The scheduled-tasks area's variables (spread into the web's env schema). */
export const tasksEnv = {
  /** Scheduled tasks one user may have (in any state), for every plan without its own TASKS_PER_USER_<PLAN>. */
  TASKS_PER_USER: positiveInt(50),
  /**
   * The closest two runs of one task's schedule may come, in seconds, for every plan without its own
   * TASK_MIN_INTERVAL_SECONDS_<PLAN>: a schedule that runs more often is refused.
   */
  TASK_MIN_INTERVAL_SECONDS: positiveInt(60).refine(
    (seconds) => seconds <= TASK_MIN_INTERVAL_MAX_SECONDS,
    `must be at most ${TASK_MIN_INTERVAL_MAX_SECONDS} (one day)`,
  ),
};

export interface TasksPlanConfig {
  /** By plan (keys as `planVariableName` of ../infra/config/plans), from `TASKS_PER_USER_<PLAN>`. */
  tasksPerUserByPlan: Readonly<Record<string, number>>;
  /** By plan, from `TASK_MIN_INTERVAL_SECONDS_<PLAN>`. */
  taskMinIntervalSecondsByPlan: Readonly<Record<string, number>>;
}

/** The per-plan variables; throws ConfigError naming each bad one. */
export function loadTasksPlanConfig(env: Record<string, string | undefined>): TasksPlanConfig {
  const problems: string[] = [];
  const tasksPerUserByPlan = readPlanValues(env, "TASKS_PER_USER", problems);
  const taskMinIntervalSecondsByPlan = readPlanValues(
    env,
    "TASK_MIN_INTERVAL_SECONDS",
    problems,
    TASK_MIN_INTERVAL_MAX_SECONDS,
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return { tasksPerUserByPlan, taskMinIntervalSecondsByPlan };
}

export interface TaskLimits {
  plan: string;
  tasksPerUser: number;
  minIntervalSeconds: number;
}

/** What a plan allows: its own variables, else the defaults every plan has. */
export function taskLimitsOfPlan(
  config: { TASKS_PER_USER: number; TASK_MIN_INTERVAL_SECONDS: number } & TasksPlanConfig,
  plan: string,
): TaskLimits {
  return {
    plan,
    tasksPerUser: valueOfPlan(config.tasksPerUserByPlan, plan, config.TASKS_PER_USER),
    minIntervalSeconds: valueOfPlan(
      config.taskMinIntervalSecondsByPlan,
      plan,
      config.TASK_MIN_INTERVAL_SECONDS,
    ),
  };
}
