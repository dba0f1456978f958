/**
 * Permission requests by tier and decision. A classification counts once with the classifier's verdict
 * (`allowed` for safe, `blocked` for destructive, `queued` or `refused` (too many pending) for dangerous);
 * a user's decision on a queued request counts once more with that decision (`approve`,
 * `approve_always`, `reject`).
 */
import { counter } from "@svc/common/metrics/index";

export type PermissionMetricDecision =
  | "allowed"
  | "blocked"
  | "queued"
  | "refused"
  | "approve"
  | "approve_always"
  | "reject";

export function countPermissionRequest(tier: string, decision: PermissionMetricDecision): void {
  counter<"tier" | "decision">({
    name: "permission_requests_total",
    help: "Permission requests by tier and decision: classifier verdicts (allowed, blocked, queued, refused) and user decisions (approve, approve_always, reject)",
    labelNames: ["tier", "decision"],
  }).inc({ tier, decision });
}
