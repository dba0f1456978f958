CREATE TABLE "skill_activations" (
	"user_id" text NOT NULL,
	"skill_id" text NOT NULL,
	"server_name" text NOT NULL,
	"server_version" text NOT NULL,
	"tools" jsonb NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone NOT NULL,
	CONSTRAINT "skill_activations_user_id_skill_id_pk" PRIMARY KEY("user_id","skill_id")
);
--> statement-breakpoint
ALTER TABLE "skill_activations" ADD CONSTRAINT "skill_activations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "skill_activations_user_last_used_idx" ON "skill_activations" USING btree ("user_id","last_used_at");