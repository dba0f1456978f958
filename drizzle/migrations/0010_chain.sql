CREATE TABLE "agent_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"host" text NOT NULL,
	"method" text NOT NULL,
	"protocol" text,
	"network" text,
	"asset" text,
	"recipient" text,
	"amount_atomic" numeric(78, 0),
	"amount_micro_usd" bigint,
	"outcome" text NOT NULL,
	"reason" text,
	"reference" text,
	"status" integer,
	"signed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_payments_outcome" CHECK ("agent_payments"."outcome" in ('pending', 'refused', 'paid', 'failed', 'error')),
	CONSTRAINT "agent_payments_amount_non_negative" CHECK ("agent_payments"."amount_micro_usd" >= 0)
);
--> statement-breakpoint
CREATE TABLE "agent_spend_days" (
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"day" date NOT NULL,
	"spent_micro_usd" bigint NOT NULL,
	CONSTRAINT "agent_spend_days_pk" PRIMARY KEY("user_id","agent_id","day"),
	CONSTRAINT "agent_spend_days_spent_non_negative" CHECK ("agent_spend_days"."spent_micro_usd" >= 0)
);
--> statement-breakpoint
CREATE TABLE "market_data_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_payments" ADD CONSTRAINT "agent_payments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_spend_days" ADD CONSTRAINT "agent_spend_days_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_payments_user_agent_created_idx" ON "agent_payments" USING btree ("user_id","agent_id","created_at");