import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { createdAt, timestamptz, updatedAt } from "./columns";

// Deployed agents, one per runtime service (provisioning jobs, lifecycle operations, watchdog).
// The gateway token must be returned to its owner ("Gateway token"), so it is stored encrypted, not hashed.
export const agents = pgTable(
  "agents",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Hosting-platform service id, persisted so lifecycle operations need not match services by name. */
    runtimeServiceId: text("runtime_service_id"),
    /** Base URL the shared probe and the runtime proxy use. */
    url: text("url"),
    /** Per-user gateway token (64-char hex), AES-256-GCM encrypted. */
    gatewayTokenEncrypted: text("gateway_token_encrypted"),
    image: text("image"),
    version: text("version"),
    /** pending, provisioning, running, stopped, crashed, degraded, crash_loop, failed (open set). */
    status: text("status").notNull().default("pending"),
    plan: text("plan").notNull().default("solo"),
    aiProvider: text("ai_provider").notNull().default("openrouter"),
    agentType: text("agent_type").notNull().default("creative"),
    /** Hosting driver that runs it: local, railway or docker. */
    hostingProvider: text("hosting_provider").notNull().default("local"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("agents_user_id_idx").on(t.userId),
    index("agents_runtime_service_id_idx").on(t.runtimeServiceId),
  ],
);
export type Agent = typeof agents.$inferSelect;
export type NewAgent = typeof agents.$inferInsert;

// Database fallback for heartbeat settings when the gateway cron job is unavailable (answered as source `db`).
export const heartbeatSettings = pgTable("heartbeat_settings", {
  agentId: text("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
  enabled: boolean("enabled").notNull().default(true),
  /** Interval as the gateway writes it, for example `30m`. */
  frequency: text("frequency").notNull().default("30m"),
  updatedAt: updatedAt(),
});
export type HeartbeatSetting = typeof heartbeatSettings.$inferSelect;
export type NewHeartbeatSetting = typeof heartbeatSettings.$inferInsert;

// Events received by the hosting-platform status webhook,
// kept here with the same 7-day lifetime as the key-value store record.
export const hostingStatusEvents = pgTable(
  "hosting_status_events",
  {
    id: text("id").primaryKey(),
    /** `deployment` or `status_page`. */
    source: text("source").notNull(),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    receivedAt: timestamptz("received_at").notNull().defaultNow(),
    expiresAt: timestamptz("expires_at").notNull().default(sql`now() + interval '7 days'`),
  },
  (t) => [
    index("hosting_status_events_received_at_idx").on(t.receivedAt.desc().nullsFirst()),
    index("hosting_status_events_expires_at_idx").on(t.expiresAt),
  ],
);
export type HostingStatusEvent = typeof hostingStatusEvents.$inferSelect;
export type NewHostingStatusEvent = typeof hostingStatusEvents.$inferInsert;

// Per-agent watchdog state: crash times within the sliding window,
// last probe result, and which backend process currently runs the watchdog (informational; locks are advisory).
export const watchdogStates = pgTable("watchdog_states", {
  agentId: text("agent_id")
    .primaryKey()
    .references(() => agents.id, { onDelete: "cascade" }),
  /** For example healthy, degraded, crash_loop, repairing. */
  state: text("state").notNull().default("healthy"),
  crashTimes: timestamptz("crash_times").array().notNull().default(sql`'{}'::timestamptz[]`),
  lastProbeAt: timestamptz("last_probe_at"),
  /** Classification of the last probe: running, healthy, starting, stopped, setup, unreachable... */
  lastStatus: text("last_status"),
  lastRepairAt: timestamptz("last_repair_at"),
  ownerId: text("owner_id"),
  updatedAt: updatedAt(),
});
export type WatchdogState = typeof watchdogStates.$inferSelect;
export type NewWatchdogState = typeof watchdogStates.$inferInsert;
