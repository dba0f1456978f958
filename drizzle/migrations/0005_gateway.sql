CREATE TABLE "card_credit_events" (
	"event_id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"amount_usd" numeric(18, 6) NOT NULL,
	"checkout_session_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "card_credits" (
	"user_id" text PRIMARY KEY NOT NULL,
	"balance_usd" numeric(18, 6) DEFAULT '0' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_credits_balance_non_negative" CHECK ("card_credits"."balance_usd" >= 0)
);
--> statement-breakpoint
ALTER TABLE "mpp_used_nonces" DROP CONSTRAINT "mpp_used_nonces_pkey";--> statement-breakpoint
ALTER TABLE "mpp_used_nonces" ADD COLUMN "payer" text NOT NULL;--> statement-breakpoint
ALTER TABLE "mpp_used_nonces" ADD CONSTRAINT "mpp_used_nonces_pk" PRIMARY KEY("payer","nonce");--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD COLUMN "refunded_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD COLUMN "response_status" integer;--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD COLUMN "response_content_type" text;--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD COLUMN "response_body" text;--> statement-breakpoint
ALTER TABLE "card_credit_events" ADD CONSTRAINT "card_credit_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "card_credits" ADD CONSTRAINT "card_credits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD CONSTRAINT "payment_session_vouchers_idempotency_key" UNIQUE("session_id","idempotency_key");