/**
 * Per-plan values read from variables named by pattern (`<NAME>_<PLAN>`), which the env schema cannot list:
 * `FILE_QUOTA_MB_TEAM=100` for plan "team", `TASKS_PER_USER_PRO=500` for plan "pro".
 */

/** A plan name as it appears in `<NAME>_<PLAN>`: upper-cased, other characters as `_`. */
export function planVariableName(plan: string): string {
  return plan.toUpperCase().replace(/[^A-Z0-9]/g, "_");
}

/**
 * The `<name>_<PLAN>` variables of `env` as positive whole numbers by plan (keys as `planVariableName`);
 * a bad value is added to `problems`, naming the variable. `max`, when given, bounds each value.
 */
export function readPlanValues(
  env: Record<string, string | undefined>,
  name: string,
  problems: string[],
  max = Number.MAX_SAFE_INTEGER,
): Record<string, number> {
  const pattern = new RegExp(`^${name}_([A-Z0-9_]+)$`);
  const byPlan: Record<string, number> = {};
  for (const [variable, raw] of Object.entries(env)) {
    const plan = pattern.exec(variable)?.[1];
    const value = raw?.trim();
    if (!plan || !value) continue;
    const number = Number(value);
    if (!/^\d+$/.test(value) || number <= 0 || number > max) {
      problems.push(
        max === Number.MAX_SAFE_INTEGER
          ? `${variable}: must be a positive whole number (got "${value}")`
          : `${variable}: must be a whole number from 1 to ${max} (got "${value}")`,
      );
    } else byPlan[plan] = number;
  }
  return byPlan;
}

/** The value of `plan` from `byPlan`, else the default every plan has. */
export function valueOfPlan(
  byPlan: Readonly<Record<string, number>>,
  plan: string,
  fallback: number,
): number {
  return byPlan[planVariableName(plan)] ?? fallback;
}
