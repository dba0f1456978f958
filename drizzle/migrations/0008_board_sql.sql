-- Job board search (GET /api/jobs/board?search=): case-insensitive substring over title and description,
-- answered from trigram indexes instead of a walk over every listing.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_listings_title_trgm_idx" ON "job_listings" USING gin ("title" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_listings_description_trgm_idx" ON "job_listings" USING gin ("description" gin_trgm_ops);
