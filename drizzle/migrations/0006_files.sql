CREATE TABLE "file_upload_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"bytes" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "file_upload_reservations_bytes_non_negative" CHECK ("file_upload_reservations"."bytes" >= 0)
);
--> statement-breakpoint
ALTER TABLE "file_upload_reservations" ADD CONSTRAINT "file_upload_reservations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "file_upload_reservations_user_id_idx" ON "file_upload_reservations" USING btree ("user_id");