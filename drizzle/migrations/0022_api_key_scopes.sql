ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{board:write,approvals:write}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scopes_present" CHECK (cardinality("api_keys"."scopes") > 0);