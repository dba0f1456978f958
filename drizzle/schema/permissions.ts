import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns";

export type PermissionTier = "safe" | "dangerous" | "destructive";
export type PermissionStatus = "pending" | "approved" | "rejected";
export type PermissionDecision = "approve" | "reject" | "approve_always";

// Tool calls awaiting the user's approval.
// Ids are `perm_<ms>_<random>` (REST) or `hook_<ms>_<random>` (classify hook). No foreign keys: the
// pre-tool-use hook is fail-closed and must be able to record a request for any agent/user pair it reports.
export const permissionRequests = pgTable(
  "permission_requests",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    userId: text("user_id").notNull(),
    toolName: text("tool_name").notNull(),
    toolInput: jsonb("tool_input").$type<Record<string, unknown>>().notNull().default({}),
    tier: text("tier").$type<PermissionTier>().notNull(),
    reason: text("reason").notNull(),
    /** Unix milliseconds, as returned by the API. */
    timestamp: bigint("timestamp", { mode: "number" }).notNull(),
    status: text("status").$type<PermissionStatus>().notNull().default("pending"),
    decision: text("decision").$type<PermissionDecision>(),
    decidedAt: timestamptz("decided_at"),
    createdAt: createdAt(),
  },
  (t) => [
    check(
      "permission_requests_id_prefix",
      sql`starts_with(${t.id}, 'perm_') or starts_with(${t.id}, 'hook_')`,
    ),
    check("permission_requests_tier", sql`${t.tier} in ('safe', 'dangerous', 'destructive')`),
    check("permission_requests_status", sql`${t.status} in ('pending', 'approved', 'rejected')`),
    check(
      "permission_requests_decision",
      sql`${t.decision} is null or ${t.decision} in ('approve', 'reject', 'approve_always')`,
    ),
    index("permission_requests_user_id_status_idx").on(t.userId, t.status),
  ],
);
export type PermissionRequest = typeof permissionRequests.$inferSelect;
export type NewPermissionRequest = typeof permissionRequests.$inferInsert;
