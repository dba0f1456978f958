import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

export const partnerInquiryTypes = [
  "general",
  "ai_provider",
  "integration",
  "reseller",
  "content",
  "infrastructure",
  "enterprise",
] as const;
export type PartnerInquiryType = (typeof partnerInquiryTypes)[number];

// Inquiries sent through POST /api/partner; public, rate limited per IP.
export const partnerInquiries = pgTable(
  "partner_inquiries",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    company: text("company"),
    website: text("website"),
    type: text("type").$type<PartnerInquiryType>().notNull().default("general"),
    message: text("message").notNull(),
    /** enterprise or ai_provider with a company. */
    fastTrack: boolean("fast_track").notNull().default(false),
    ip: text("ip"),
    createdAt: createdAt(),
  },
  (t) => [
    check(
      "partner_inquiries_type",
      sql`${t.type} in ('general', 'ai_provider', 'integration', 'reseller', 'content', 'infrastructure', 'enterprise')`,
    ),
    index("partner_inquiries_created_at_idx").on(t.createdAt.desc().nullsFirst()),
  ],
);
export type PartnerInquiry = typeof partnerInquiries.$inferSelect;
export type NewPartnerInquiry = typeof partnerInquiries.$inferInsert;
