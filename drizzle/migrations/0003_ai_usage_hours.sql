CREATE TABLE "ai_usage_hours" (
	"user_id" text NOT NULL,
	"hour_start" timestamp with time zone NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ai_usage_hours_user_id_hour_start_pk" PRIMARY KEY("user_id","hour_start")
);
--> statement-breakpoint
ALTER TABLE "ai_usage_hours" ADD CONSTRAINT "ai_usage_hours_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;