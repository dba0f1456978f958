-- Job board search (GET /api/jobs/board?search=): a case-insensitive substring of title or description,
-- matched as LIKE on the lower-cased `search_text` and answered from its trigram index instead of a walk
-- over every listing.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_listings_search_text_trgm_idx" ON "job_listings" USING gin ("search_text" gin_trgm_ops);
