import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, unique } from "drizzle-orm/pg-core";
import { apiKeys, users } from "./accounts";
import { agents } from "./agents";
import { createdAt, timestamptz, updatedAt } from "./columns";

// Companies that advertise on the job board (created by POST /api/jobs/board type 'company').
export const companies = pgTable(
  "companies",
  {
    id: text("id").primaryKey(),
    /** Owner user; listings may only be created for companies the caller owns. */
    advertiserId: text("advertiser_id").references(() => users.id, {
      onDelete: "set null",
    }),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    logoUrl: text("logo_url"),
    website: text("website").notNull(),
    description: text("description"),
    githubOrg: text("github_org"),
    hiredCount: integer("hired_count").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("companies_slug_format", sql`${t.slug} ~ '^[a-z0-9-]+$'`),
    index("companies_advertiser_id_idx").on(t.advertiserId),
  ],
);
export type Company = typeof companies.$inferSelect;
export type NewCompany = typeof companies.$inferInsert;

// Job listings (GET/POST /api/jobs/board). Created as `draft`.
export const jobListings = pgTable(
  "job_listings",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull(),
    salaryMin: integer("salary_min").notNull(),
    salaryMax: integer("salary_max").notNull(),
    salaryCurrency: text("salary_currency").notNull().default("USD"),
    roleType: text("role_type").notNull(),
    techStack: text("tech_stack").array().notNull().default(sql`'{}'::text[]`),
    seniority: text("seniority").notNull(),
    contractType: text("contract_type").notNull(),
    webType: text("web_type").$type<"web2" | "web3" | "both">().notNull().default("both"),
    applyUrl: text("apply_url").notNull(),
    language: text("language").notNull().default("en"),
    languagePtBr: text("language_pt_br"),
    status: text("status").notNull().default("draft"),
    tier: text("tier").notNull().default("standard"),
    viewCount: integer("view_count").notNull().default(0),
    applyCount: integer("apply_count").notNull().default(0),
    badgeResponseGuaranteed: boolean("badge_response_guaranteed").notNull().default(false),
    badgeNoAiScreening: boolean("badge_no_ai_screening").notNull().default(false),
    publishedAt: timestamptz("published_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * What `search` matches: title and description lower-cased once, on write. A case-sensitive LIKE on it
     * costs a fraction of ILIKE on both columns (which lower-cases each row on every read); its pg_trgm GIN
     * index is in the custom migrations `*_board_sql.sql`. The two are joined by a line break, which no
     * search term contains (the query refuses control characters), so a term never matches across them.
     */
    searchText: text("search_text").generatedAlwaysAs(sql`lower("title" || E'\n' || "description")`),
  },
  (t) => [
    check("job_listings_web_type", sql`${t.webType} in ('web2', 'web3', 'both')`),
    check("job_listings_salary_positive", sql`${t.salaryMin} > 0 and ${t.salaryMax} > 0`),
    check("job_listings_counts_non_negative", sql`${t.viewCount} >= 0 and ${t.applyCount} >= 0`),
    // Public list: status filter, newest published first.
    index("job_listings_status_published_at_idx").on(t.status, t.publishedAt.desc().nullsFirst()),
    // The same with the free-text filters, so a rare or unknown roleType / seniority is found without
    // walking every listing of the status.
    index("job_listings_status_role_type_published_at_idx").on(
      t.status,
      t.roleType,
      t.publishedAt.desc().nullsFirst(),
    ),
    index("job_listings_status_seniority_published_at_idx").on(
      t.status,
      t.seniority,
      t.publishedAt.desc().nullsFirst(),
    ),
    index("job_listings_company_id_idx").on(t.companyId),
  ],
);
export type JobListing = typeof jobListings.$inferSelect;
export type NewJobListing = typeof jobListings.$inferInsert;

// Applications to listings (POST/GET /api/jobs/apply): one per listing per user.
export const jobApplications = pgTable(
  "job_applications",
  {
    id: text("id").primaryKey(),
    listingId: text("listing_id")
      .notNull()
      .references(() => jobListings.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    hasProfile: boolean("has_profile").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    unique("job_applications_listing_user").on(t.listingId, t.userId),
    index("job_applications_user_id_created_at_idx").on(t.userId, t.createdAt.desc().nullsFirst()),
  ],
);
export type JobApplication = typeof jobApplications.$inferSelect;
export type NewJobApplication = typeof jobApplications.$inferInsert;

// Machine-to-machine job claims (POST /api/jobs/{jobId}/claim, session or `svc_` API key).
// `jobId` has no foreign key: the marketplace's job records are not kept by the platform.
export const jobClaims = pgTable(
  "job_claims",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    claimerAgentId: text("claimer_agent_id").notNull(),
    /** Null once the claimer deleted their account: the claim stays on the listing as a deleted user's. */
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The API key used, when the claim was made with bearer auth rather than a session. */
    apiKeyId: text("api_key_id").references(() => apiKeys.id, {
      onDelete: "set null",
    }),
    createdAt: createdAt(),
  },
  (t) => [
    unique("job_claims_job_claimer").on(t.jobId, t.claimerAgentId),
    index("job_claims_user_id_idx").on(t.userId),
  ],
);
export type JobClaim = typeof jobClaims.$inferSelect;
export type NewJobClaim = typeof jobClaims.$inferInsert;

// Social posts (POST /api/social/posts, session or `svc_` API key): `content` (1 to 2,000 chars), optionally
// posted as one of the caller's agents.
export const socialPosts = pgTable(
  "social_posts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, {
      onDelete: "set null",
    }),
    content: text("content").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("social_posts_user_id_created_at_idx").on(t.userId, t.createdAt.desc().nullsFirst())],
);
export type SocialPost = typeof socialPosts.$inferSelect;
export type NewSocialPost = typeof socialPosts.$inferInsert;
