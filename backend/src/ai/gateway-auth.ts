import { safeEqual } from "@svc/common";
import type { Database } from "@svc/db";
import { users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { RequestHandler } from "express";
import { gatewayTokenStore } from "../agents/tokens";
import type { VerifiedPlan } from "../auth/plan";
import type { UserContext } from "../auth/user-context";

/**
 * `/api/ai/chat` for agents: `Authorization: Bearer <the agent's gateway token>` identifies the agent, its
 * user and that user's plan (from the account, so the agent cannot claim another). Sets what
 * `verifyUserContext` and `requireMatchingPlan` would set, plus `res.locals.agentId`. Any other credential
 * (the internal key, a missing or unknown Bearer) skips to the next route, where the internal-key chain
 * answers it (401, 403, or the web's signed user context).
 */
export function gatewayTokenChatAuth(
  db: Database,
  config: { INTERNAL_API_KEY?: string | undefined; DATA_ENCRYPTION_KEY?: string | undefined },
): RequestHandler {
  const tokens = gatewayTokenStore(db, config.DATA_ENCRYPTION_KEY);
  return async (req, res, next) => {
    const match = /^Bearer (.+)$/i.exec(req.get("authorization") ?? "");
    if (!match || !tokens.usable) return next("route");
    const presented = match[1];
    if (config.INTERNAL_API_KEY && safeEqual(presented, config.INTERNAL_API_KEY)) return next("route");
    const owner = await tokens.findOwner(presented);
    if (!owner) return next("route");
    const rows = await db
      .select({ email: users.email, plan: users.plan, paymentsSubscriptionId: users.paymentsSubscriptionId })
      .from(users)
      .where(eq(users.id, owner.userId))
      .limit(1);
    const user = rows[0];
    if (!user) return next("route");
    const context: UserContext = { userId: owner.userId, userEmail: user.email, userRole: "user" };
    const plan: VerifiedPlan = {
      plan: user.plan,
      paymentsSubscriptionId: user.paymentsSubscriptionId,
      verifiedBy: "database",
    };
    res.locals.userContext = context;
    res.locals.verifiedPlan = plan;
    res.locals.agentId = owner.agentId;
    next();
  };
}
