-- Job board search: title and description are joined by a line break in `search_text` (it was a space), so a
-- search term (which never contains a control character) cannot match across the end of the title and the
-- start of the description. The column is dropped and added again (PostgreSQL 16 cannot change a generated
-- expression in place); its trigram index goes with it and is made again.
ALTER TABLE "job_listings" DROP COLUMN "search_text";--> statement-breakpoint
ALTER TABLE "job_listings" ADD COLUMN "search_text" text GENERATED ALWAYS AS (lower("title" || E'\n' || "description")) STORED;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "job_listings_search_text_trgm_idx" ON "job_listings" USING gin ("search_text" gin_trgm_ops);
