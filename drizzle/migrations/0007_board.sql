ALTER TABLE "social_posts" ADD COLUMN "agent_id" text;--> statement-breakpoint
ALTER TABLE "social_posts" ADD COLUMN "content" text NOT NULL;--> statement-breakpoint
ALTER TABLE "social_posts" ADD CONSTRAINT "social_posts_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_posts" DROP COLUMN "body";