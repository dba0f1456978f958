-- The checkout sessions the platform created at the card provider: the card webhook credits only these, in
-- USD, the amount sold, to the user who bought it (issue 24 item 7).
CREATE TABLE "card_checkouts" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"amount_usd" numeric(18, 6) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "card_checkouts_amount_positive" CHECK ("card_checkouts"."amount_usd" > 0)
);
--> statement-breakpoint
ALTER TABLE "card_checkouts" ADD CONSTRAINT "card_checkouts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;