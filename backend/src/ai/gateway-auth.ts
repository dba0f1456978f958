import { bearerCredential, safeEqual } from "@svc/common";
import type { Database } from "@svc/db";
import type { RequestHandler } from "express";
import { gatewayTokenStore } from "../agents/tokens";
import { accountPlanOf, type VerifiedPlan } from "../auth/plan";
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
    const presented = bearerCredential(req.get("authorization"));
    if (presented === null || !tokens.usable) return next("route");
    if (config.INTERNAL_API_KEY && safeEqual(presented, config.INTERNAL_API_KEY)) return next("route");
    const owner = await tokens.findOwner(presented);
    if (!owner) return next("route");
    const user = await accountPlanOf(db, owner.userId);
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
