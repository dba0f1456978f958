import type { Clock } from "@svc/common";
import type { Database } from "@svc/db";
import { aiUsageHours } from "@svc/db/schema";
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { BackendConfig } from "../config";
import { modelNotAllowed, requestBudgetExhausted, tokenBudgetExhausted } from "./errors";

export type AiBudgetConfig = Pick<
  BackendConfig,
  "AI_REQUESTS_PER_HOUR" | "AI_TOKENS_PER_DAY" | "AI_DEFAULT_MODEL" | "AI_MODELS" | "AI_PLAN_LIMITS"
>;

/**
 * The model an agent deployed on the platform's default asks for: the AI proxy answers it with
 * AI_DEFAULT_MODEL as set at the time of the call. A changed AI_DEFAULT_MODEL (a newcomer sets the AI
 * provider and its model after deploying) then reaches every such agent without a redeploy; an agent
 * configured with a model's own name keeps asking for that one.
 */
export const PLATFORM_DEFAULT_MODEL = "platform-default";

/** The model a request is for: AI_DEFAULT_MODEL when it names none or the platform's default. */
export function requestedModel(
  config: Pick<BackendConfig, "AI_DEFAULT_MODEL">,
  model: string | undefined,
): string {
  return model === undefined || model === PLATFORM_DEFAULT_MODEL ? config.AI_DEFAULT_MODEL : model;
}

/** What one plan may do on `/api/ai/chat`. */
export interface AiPlanBudget {
  plan: string;
  requestsPerHour: number;
  /** Prompt + completion tokens per UTC day. */
  tokensPerDay: number;
  /** Model ids, `prefix/*` patterns or `*`; the default model is always among them. */
  models: string[];
}

/** A plan's budget: its AI_PLAN_LIMITS entry, field by field over the AI_* defaults every plan has. */
export function aiPlanBudget(config: AiBudgetConfig, plan: string): AiPlanBudget {
  const own = Object.hasOwn(config.AI_PLAN_LIMITS, plan) ? config.AI_PLAN_LIMITS[plan] : undefined;
  const models = own?.models ?? config.AI_MODELS;
  return {
    plan,
    requestsPerHour: own?.requestsPerHour ?? config.AI_REQUESTS_PER_HOUR,
    tokensPerDay: own?.tokensPerDay ?? config.AI_TOKENS_PER_DAY,
    models: models.includes(config.AI_DEFAULT_MODEL) ? models : [config.AI_DEFAULT_MODEL, ...models],
  };
}

/** 403 `ai_model_not_allowed`, naming the model and the plan, unless the plan's list allows the model. */
export function requireAllowedModel(budget: AiPlanBudget, model: string): void {
  const allowed = budget.models.some((pattern) =>
    pattern.endsWith("*") ? model.startsWith(pattern.slice(0, -1)) : pattern === model,
  );
  if (allowed) return;
  throw modelNotAllowed(model, budget.plan, budget.models);
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The usage row a forwarded request is counted in (its user and clock hour). */
export interface AiUsageSlot {
  userId: string;
  hourStart: Date;
}

/**
 * Counts one request against the user's budget, or throws 429 with `retryAfterSeconds` (until the UTC day
 * ends for tokens, the clock hour for requests) and counts nothing. Tokens are only known after an answer,
 * so the token budget refuses once the day's recorded tokens reached it (a request in flight may take the
 * total past it). The request count is one conditional upsert: concurrent requests in any number of
 * backend processes cannot take the hour past its budget.
 */
export async function reserveAiRequest(
  db: Database,
  clock: Clock,
  budget: AiPlanBudget,
  userId: string,
): Promise<AiUsageSlot> {
  const now = clock.now().getTime();
  const hourStart = new Date(now - (now % HOUR_MS));
  const dayStart = new Date(now - (now % DAY_MS));
  const dayEnd = new Date(dayStart.getTime() + DAY_MS);

  const [spent] = await db
    .select({
      tokens: sql<string>`coalesce(sum(${aiUsageHours.promptTokens} + ${aiUsageHours.completionTokens}), 0)`,
    })
    .from(aiUsageHours)
    .where(
      and(
        eq(aiUsageHours.userId, userId),
        gte(aiUsageHours.hourStart, dayStart),
        lt(aiUsageHours.hourStart, dayEnd),
      ),
    );
  if (Number(spent?.tokens ?? 0) >= budget.tokensPerDay) {
    throw tokenBudgetExhausted(
      `the "${budget.plan}" plan allows ${budget.tokensPerDay} AI tokens per day (UTC)`,
      dayEnd.getTime() - now,
      budget.tokensPerDay,
    );
  }

  const counted = await db
    .insert(aiUsageHours)
    .values({ userId, hourStart, requests: 1 })
    .onConflictDoUpdate({
      target: [aiUsageHours.userId, aiUsageHours.hourStart],
      set: { requests: sql`${aiUsageHours.requests} + 1`, updatedAt: sql`now()` },
      setWhere: sql`${aiUsageHours.requests} < ${budget.requestsPerHour}`,
    })
    .returning({ requests: aiUsageHours.requests });
  if (counted.length === 0) {
    throw requestBudgetExhausted(
      `the "${budget.plan}" plan allows ${budget.requestsPerHour} AI requests per hour`,
      hourStart.getTime() + HOUR_MS - now,
      budget.requestsPerHour,
    );
  }
  return { userId, hourStart };
}

/** Adds an answer's tokens to the row its request was counted in. */
export async function recordAiUsage(
  db: Database,
  slot: AiUsageSlot,
  tokens: { promptTokens: number; completionTokens: number },
): Promise<void> {
  if (tokens.promptTokens === 0 && tokens.completionTokens === 0) return;
  await db
    .update(aiUsageHours)
    .set({
      promptTokens: sql`${aiUsageHours.promptTokens} + ${tokens.promptTokens}`,
      completionTokens: sql`${aiUsageHours.completionTokens} + ${tokens.completionTokens}`,
    })
    .where(and(eq(aiUsageHours.userId, slot.userId), eq(aiUsageHours.hourStart, slot.hourStart)));
}
