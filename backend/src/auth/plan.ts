import { safeEqual } from "@svc/common";
import type { Database } from "@svc/db";
import { users } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import type { RequestHandler, Response } from "express";
import { emailNotVerified, subscriptionMismatch } from "./errors";
import { userContextOf } from "./user-context";

/** The plan a request runs under, after `requireMatchingPlan`. */
export interface VerifiedPlan {
  plan: string;
  paymentsSubscriptionId: string | null;
  /** `database`: checked against the user record; `headers`: database unreachable, headers taken alone. */
  verifiedBy: "database" | "headers";
}

/**
 * Plan middleware of `/api/ai/chat`, after `verifyUserContext`: `x-user-plan` and `x-payments-subscription-id`
 * (absent or empty = none) must equal the user's row; a difference, no plan header or an unknown user is 402
 * `SUBSCRIPTION_MISMATCH`. When the database cannot be reached (a connection failure, not a query bug) the
 * headers are taken alone: we fail open on the plan claim rather than close chat for everyone during an
 * outage, and only the web proxy can make the claim (signed context, internal key). Other database errors
 * are 500. `requireVerifiedEmail`: an unconfirmed email is 403 `EMAIL_NOT_VERIFIED` when the database answers.
 */
export function requireMatchingPlan(
  db: Database,
  { requireVerifiedEmail = false }: { requireVerifiedEmail?: boolean } = {},
): RequestHandler {
  return async (req, res, next) => {
    const { userId } = userContextOf(res);
    const plan = req.get("x-user-plan") || undefined;
    const subscriptionId = req.get("x-payments-subscription-id") || null;
    if (!plan) throw subscriptionMismatch("x-user-plan header is required");

    let record: AccountPlan | null;
    try {
      record = await accountPlanOf(db, userId);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      setPlan(res, { plan, paymentsSubscriptionId: subscriptionId, verifiedBy: "headers" });
      res.locals.logFields = { ...res.locals.logFields, planCheck: "headers-only (database unreachable)" };
      next();
      return;
    }

    if (!record) throw subscriptionMismatch("no account matches the user context");
    if (requireVerifiedEmail && !record.emailVerified) throw emailNotVerified();
    if (record.plan !== plan) throw subscriptionMismatch("x-user-plan does not match the account's plan");
    if (!sameSubscription(record.paymentsSubscriptionId, subscriptionId)) {
      throw subscriptionMismatch("x-payments-subscription-id does not match the account's subscription");
    }
    setPlan(res, { plan, paymentsSubscriptionId: subscriptionId, verifiedBy: "database" });
    next();
  };
}

/**
 * What an account's plan check reads: its plan and subscription, whether its email is proven, and the email
 * an agent's context carries.
 */
export interface AccountPlan {
  email: string;
  plan: string;
  paymentsSubscriptionId: string | null;
  /** Whether the account's email was proven. */
  emailVerified: boolean;
}

/** The plan of account `userId`, or null when there is no such account. */
export async function accountPlanOf(db: Database, userId: string): Promise<AccountPlan | null> {
  const rows = await db
    .select({
      email: users.email,
      plan: users.plan,
      paymentsSubscriptionId: users.paymentsSubscriptionId,
      emailVerified: sql<boolean>`${users.emailVerifiedAt} is not null`,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  return rows[0] ?? null;
}

/** The plan `requireMatchingPlan` verified for this request. */
export function verifiedPlanOf(res: Response): VerifiedPlan {
  const plan = res.locals.verifiedPlan as VerifiedPlan | undefined;
  if (!plan) throw new Error("requireMatchingPlan must run before this handler");
  return plan;
}

function setPlan(res: Response, plan: VerifiedPlan): void {
  res.locals.verifiedPlan = plan;
}

function sameSubscription(stored: string | null, claimed: string | null): boolean {
  if (stored === null || claimed === null) return stored === claimed;
  return safeEqual(stored, claimed);
}

/** Socket-level failures and PostgreSQL's connection-class errors: the database could not be reached. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const UNAVAILABLE_MESSAGES = [/connection terminated/i, /timeout exceeded when trying to connect/i];

/** Whether an error (drizzle wraps pg's in `cause`; a dual-stack connect gives an AggregateError) means "unreachable". */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 5) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith("08")) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(err.message))) return true;
  if (err instanceof AggregateError && err.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) {
    return true;
  }
  return isDatabaseUnavailable(err.cause, depth + 1);
}
