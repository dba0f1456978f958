CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash"),
	CONSTRAINT "api_keys_prefix_format" CHECK (char_length("api_keys"."prefix") = 10 and starts_with("api_keys"."prefix", 'svc_'))
);
--> statement-breakpoint
CREATE TABLE "email_verification_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idp_accounts" (
	"provider" text NOT NULL,
	"provider_account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"access_token_encrypted" text,
	"refresh_token_encrypted" text,
	"id_token_encrypted" text,
	"scope" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idp_accounts_pk" PRIMARY KEY("provider","provider_account_id")
);
--> statement-breakpoint
CREATE TABLE "passkey_challenges" (
	"challenge" text PRIMARY KEY NOT NULL,
	"user_id" text,
	"purpose" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "passkey_challenges_purpose" CHECK ("passkey_challenges"."purpose" in ('register', 'authenticate')),
	CONSTRAINT "passkey_challenges_hex" CHECK (starts_with("passkey_challenges"."challenge", '0x'))
);
--> statement-breakpoint
CREATE TABLE "passkeys" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"public_key" text NOT NULL,
	"sign_count" bigint DEFAULT 0 NOT NULL,
	"transports" text[] DEFAULT '{}'::text[] NOT NULL,
	"device_type" text,
	"backed_up" boolean DEFAULT false NOT NULL,
	"label" text DEFAULT 'Passkey' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "passkeys_sign_count_non_negative" CHECK ("passkeys"."sign_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "processed_security_events" (
	"jti" text PRIMARY KEY NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"events" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "referral_credits" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"reason" text NOT NULL,
	"related_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "referral_credits_once" UNIQUE("user_id","reason","related_user_id")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"user_agent" text,
	"ip" text,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"password_hash" text,
	"email_verified_at" timestamp with time zone,
	"is_admin" boolean DEFAULT false NOT NULL,
	"plan" text DEFAULT 'solo' NOT NULL,
	"payments_subscription_id" text,
	"trial_started_at" timestamp with time zone,
	"referral_code" text NOT NULL,
	"referred_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email"),
	CONSTRAINT "users_referral_code_unique" UNIQUE("referral_code"),
	CONSTRAINT "users_email_lower_case" CHECK ("users"."email" = lower("users"."email")),
	CONSTRAINT "users_referral_code_format" CHECK ("users"."referral_code" ~ '^[A-Za-z0-9-]{1,20}$')
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"runtime_service_id" text,
	"url" text,
	"gateway_token_encrypted" text,
	"image" text,
	"version" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"plan" text DEFAULT 'solo' NOT NULL,
	"ai_provider" text DEFAULT 'openrouter' NOT NULL,
	"agent_type" text DEFAULT 'creative' NOT NULL,
	"hosting_provider" text DEFAULT 'local' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "heartbeat_settings" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"frequency" text DEFAULT '30m' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hosting_status_events" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone DEFAULT now() + interval '7 days' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "watchdog_states" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"state" text DEFAULT 'healthy' NOT NULL,
	"crash_times" timestamp with time zone[] DEFAULT '{}'::timestamptz[] NOT NULL,
	"last_probe_at" timestamp with time zone,
	"last_status" text,
	"last_repair_at" timestamp with time zone,
	"owner_id" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "companies" (
	"id" text PRIMARY KEY NOT NULL,
	"advertiser_id" text,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"logo_url" text,
	"website" text NOT NULL,
	"description" text,
	"github_org" text,
	"hired_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "companies_slug_unique" UNIQUE("slug"),
	CONSTRAINT "companies_slug_format" CHECK ("companies"."slug" ~ '^[a-z0-9-]+$')
);
--> statement-breakpoint
CREATE TABLE "job_applications" (
	"id" text PRIMARY KEY NOT NULL,
	"listing_id" text NOT NULL,
	"user_id" text NOT NULL,
	"has_profile" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_applications_listing_user" UNIQUE("listing_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "job_claims" (
	"id" text PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"claimer_agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"api_key_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_claims_job_claimer" UNIQUE("job_id","claimer_agent_id")
);
--> statement-breakpoint
CREATE TABLE "job_listings" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"salary_min" integer NOT NULL,
	"salary_max" integer NOT NULL,
	"salary_currency" text DEFAULT 'USD' NOT NULL,
	"role_type" text NOT NULL,
	"tech_stack" text[] DEFAULT '{}'::text[] NOT NULL,
	"seniority" text NOT NULL,
	"contract_type" text NOT NULL,
	"web_type" text DEFAULT 'both' NOT NULL,
	"apply_url" text NOT NULL,
	"language" text DEFAULT 'en' NOT NULL,
	"language_pt_br" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"tier" text DEFAULT 'standard' NOT NULL,
	"view_count" integer DEFAULT 0 NOT NULL,
	"apply_count" integer DEFAULT 0 NOT NULL,
	"badge_response_guaranteed" boolean DEFAULT false NOT NULL,
	"badge_no_ai_screening" boolean DEFAULT false NOT NULL,
	"published_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_listings_web_type" CHECK ("job_listings"."web_type" in ('web2', 'web3', 'both')),
	CONSTRAINT "job_listings_salary_positive" CHECK ("job_listings"."salary_min" > 0 and "job_listings"."salary_max" > 0),
	CONSTRAINT "job_listings_counts_non_negative" CHECK ("job_listings"."view_count" >= 0 and "job_listings"."apply_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "social_posts" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"api_key_id" text,
	"body" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "buddies" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" varchar(30) NOT NULL,
	"type" text NOT NULL,
	"level" integer DEFAULT 1 NOT NULL,
	"xp" integer DEFAULT 0 NOT NULL,
	"energy" integer DEFAULT 50 NOT NULL,
	"happiness" integer DEFAULT 50 NOT NULL,
	"last_fed" timestamp with time zone DEFAULT now() NOT NULL,
	"last_played" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "buddies_type" CHECK ("buddies"."type" in ('crab', 'robot', 'ghost', 'dragon', 'alien')),
	CONSTRAINT "buddies_name_not_empty" CHECK (char_length("buddies"."name") >= 1),
	CONSTRAINT "buddies_energy_range" CHECK ("buddies"."energy" between 0 and 100),
	CONSTRAINT "buddies_happiness_range" CHECK ("buddies"."happiness" between 0 and 100),
	CONSTRAINT "buddies_level_min" CHECK ("buddies"."level" >= 1),
	CONSTRAINT "buddies_xp_non_negative" CHECK ("buddies"."xp" >= 0)
);
--> statement-breakpoint
CREATE TABLE "agent_wallets" (
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"company_id" text NOT NULL,
	"address" text NOT NULL,
	"encrypted_private_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_wallets_pk" PRIMARY KEY("user_id","agent_id"),
	CONSTRAINT "agent_wallets_address" CHECK ("agent_wallets"."address" ~ '^0x[0-9a-fA-F]{40}$')
);
--> statement-breakpoint
CREATE TABLE "mpp_used_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"tx_hash" text,
	"plugin_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	CONSTRAINT "mpp_used_nonces_tx_hash_unique" UNIQUE("tx_hash")
);
--> statement-breakpoint
CREATE TABLE "payment_session_vouchers" (
	"id" text PRIMARY KEY NOT NULL,
	"session_id" text NOT NULL,
	"nonce" integer NOT NULL,
	"amount_usd" numeric(18, 6) NOT NULL,
	"plugin_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_session_vouchers_session_nonce" UNIQUE("session_id","nonce"),
	CONSTRAINT "payment_session_vouchers_amount_non_negative" CHECK ("payment_session_vouchers"."amount_usd" >= 0)
);
--> statement-breakpoint
CREATE TABLE "payment_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"wallet_address" text NOT NULL,
	"user_id" text,
	"balance_usd" numeric(18, 6) DEFAULT '0' NOT NULL,
	"nonce" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"funding_tx_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	CONSTRAINT "payment_sessions_funding_tx_hash_unique" UNIQUE("funding_tx_hash"),
	CONSTRAINT "payment_sessions_wallet_address" CHECK ("payment_sessions"."wallet_address" ~ '^0x[0-9a-f]{40}$'),
	CONSTRAINT "payment_sessions_balance_non_negative" CHECK ("payment_sessions"."balance_usd" >= 0),
	CONSTRAINT "payment_sessions_nonce_non_negative" CHECK ("payment_sessions"."nonce" >= 0)
);
--> statement-breakpoint
CREATE TABLE "radio_wallets" (
	"user_id" text PRIMARY KEY NOT NULL,
	"wallet" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "radio_wallets_wallet" CHECK ("radio_wallets"."wallet" ~ '^0x[0-9a-fA-F]{40}$')
);
--> statement-breakpoint
CREATE TABLE "user_rpc_configs" (
	"user_id" text PRIMARY KEY NOT NULL,
	"rpc_url" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_rpc_configs_https" CHECK (starts_with("user_rpc_configs"."rpc_url", 'https://'))
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"filename" text NOT NULL,
	"storage_path" text NOT NULL,
	"size" bigint NOT NULL,
	"mime_type" text DEFAULT 'application/octet-stream' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "files_storage_path_unique" UNIQUE("storage_path"),
	CONSTRAINT "files_filename_length" CHECK (char_length("files"."filename") between 1 and 128),
	CONSTRAINT "files_size_non_negative" CHECK ("files"."size" >= 0)
);
--> statement-breakpoint
CREATE TABLE "platform_jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text,
	"agent_id" text,
	"lane" text NOT NULL,
	"job_type" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 3 NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_at" timestamp with time zone,
	"lock_token" text,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"error" text,
	"result" jsonb,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_jobs_id_prefix" CHECK (starts_with("platform_jobs"."id", 'job_')),
	CONSTRAINT "platform_jobs_lane" CHECK ("platform_jobs"."lane" in ('deploy', 'runtime_exec', 'recovery')),
	CONSTRAINT "platform_jobs_status" CHECK ("platform_jobs"."status" in ('queued', 'running', 'completed', 'failed')),
	CONSTRAINT "platform_jobs_job_type_lane" CHECK (("platform_jobs"."job_type" = 'provision_managed_runtime' and "platform_jobs"."lane" = 'deploy')
        or ("platform_jobs"."job_type" = 'gateway_chat_completion' and "platform_jobs"."lane" = 'runtime_exec')
        or ("platform_jobs"."job_type" in ('runtime_sync', 'retry_repair') and "platform_jobs"."lane" = 'recovery')),
	CONSTRAINT "platform_jobs_attempts" CHECK ("platform_jobs"."attempts" >= 0 and "platform_jobs"."max_attempts" >= 1)
);
--> statement-breakpoint
CREATE TABLE "partner_inquiries" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"company" text,
	"website" text,
	"type" text DEFAULT 'general' NOT NULL,
	"message" text NOT NULL,
	"fast_track" boolean DEFAULT false NOT NULL,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_inquiries_type" CHECK ("partner_inquiries"."type" in ('general', 'ai_provider', 'integration', 'reseller', 'content', 'infrastructure', 'enterprise'))
);
--> statement-breakpoint
CREATE TABLE "permission_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"user_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"tool_input" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tier" text NOT NULL,
	"reason" text NOT NULL,
	"timestamp" bigint NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decision" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "permission_requests_id_prefix" CHECK (starts_with("permission_requests"."id", 'perm_') or starts_with("permission_requests"."id", 'hook_')),
	CONSTRAINT "permission_requests_tier" CHECK ("permission_requests"."tier" in ('safe', 'dangerous', 'destructive')),
	CONSTRAINT "permission_requests_status" CHECK ("permission_requests"."status" in ('pending', 'approved', 'rejected')),
	CONSTRAINT "permission_requests_decision" CHECK ("permission_requests"."decision" is null or "permission_requests"."decision" in ('approve', 'reject', 'approve_always'))
);
--> statement-breakpoint
CREATE TABLE "rate_limit_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"points" integer DEFAULT 0 NOT NULL,
	"expire" bigint
);
--> statement-breakpoint
CREATE TABLE "scheduled_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"cron_schedule" text NOT NULL,
	"prompt" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"last_run" timestamp with time zone,
	"next_run" timestamp with time zone,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"last_error" text,
	"claimed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scheduled_tasks_status" CHECK ("scheduled_tasks"."status" in ('pending', 'running', 'completed', 'failed')),
	CONSTRAINT "scheduled_tasks_attempts" CHECK ("scheduled_tasks"."attempts" >= 0 and "scheduled_tasks"."max_attempts" >= 1)
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verification_tokens" ADD CONSTRAINT "email_verification_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idp_accounts" ADD CONSTRAINT "idp_accounts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passkey_challenges" ADD CONSTRAINT "passkey_challenges_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passkeys" ADD CONSTRAINT "passkeys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral_credits" ADD CONSTRAINT "referral_credits_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral_credits" ADD CONSTRAINT "referral_credits_related_user_id_users_id_fk" FOREIGN KEY ("related_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_referred_by_users_id_fk" FOREIGN KEY ("referred_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "heartbeat_settings" ADD CONSTRAINT "heartbeat_settings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "watchdog_states" ADD CONSTRAINT "watchdog_states_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_advertiser_id_users_id_fk" FOREIGN KEY ("advertiser_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_applications" ADD CONSTRAINT "job_applications_listing_id_job_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."job_listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_applications" ADD CONSTRAINT "job_applications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_claims" ADD CONSTRAINT "job_claims_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_claims" ADD CONSTRAINT "job_claims_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_listings" ADD CONSTRAINT "job_listings_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_posts" ADD CONSTRAINT "social_posts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "social_posts" ADD CONSTRAINT "social_posts_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buddies" ADD CONSTRAINT "buddies_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_wallets" ADD CONSTRAINT "agent_wallets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_session_vouchers" ADD CONSTRAINT "payment_session_vouchers_session_id_payment_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."payment_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_sessions" ADD CONSTRAINT "payment_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "radio_wallets" ADD CONSTRAINT "radio_wallets_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_rpc_configs" ADD CONSTRAINT "user_rpc_configs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_tasks" ADD CONSTRAINT "scheduled_tasks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scheduled_tasks" ADD CONSTRAINT "scheduled_tasks_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_user_id_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "api_keys_prefix_idx" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE INDEX "email_verification_tokens_user_id_idx" ON "email_verification_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "idp_accounts_user_id_idx" ON "idp_accounts" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "passkey_challenges_expires_at_idx" ON "passkey_challenges" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "passkeys_user_id_idx" ON "passkeys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "referral_credits_user_id_idx" ON "referral_credits" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_user_id_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_at_idx" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_referral_code_lower_idx" ON "users" USING btree (lower("referral_code"));--> statement-breakpoint
CREATE INDEX "users_referred_by_idx" ON "users" USING btree ("referred_by");--> statement-breakpoint
CREATE INDEX "agents_user_id_idx" ON "agents" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "agents_runtime_service_id_idx" ON "agents" USING btree ("runtime_service_id");--> statement-breakpoint
CREATE INDEX "hosting_status_events_received_at_idx" ON "hosting_status_events" USING btree ("received_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "hosting_status_events_expires_at_idx" ON "hosting_status_events" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "companies_advertiser_id_idx" ON "companies" USING btree ("advertiser_id");--> statement-breakpoint
CREATE INDEX "job_applications_user_id_created_at_idx" ON "job_applications" USING btree ("user_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "job_claims_user_id_idx" ON "job_claims" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "job_listings_status_published_at_idx" ON "job_listings" USING btree ("status","published_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "job_listings_company_id_idx" ON "job_listings" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "social_posts_user_id_created_at_idx" ON "social_posts" USING btree ("user_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "buddies_user_id_created_at_idx" ON "buddies" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "mpp_used_nonces_expires_at_idx" ON "mpp_used_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "payment_sessions_wallet_address_idx" ON "payment_sessions" USING btree ("wallet_address");--> statement-breakpoint
CREATE INDEX "files_user_id_agent_id_idx" ON "files" USING btree ("user_id","agent_id");--> statement-breakpoint
CREATE INDEX "files_agent_id_idx" ON "files" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "platform_jobs_claim_idx" ON "platform_jobs" USING btree ("priority" DESC NULLS FIRST,"run_at") WHERE "platform_jobs"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "platform_jobs_status_locked_at_idx" ON "platform_jobs" USING btree ("status","locked_at");--> statement-breakpoint
CREATE INDEX "platform_jobs_lane_status_idx" ON "platform_jobs" USING btree ("lane","status");--> statement-breakpoint
CREATE INDEX "platform_jobs_queued_created_at_idx" ON "platform_jobs" USING btree ("created_at") WHERE "platform_jobs"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "platform_jobs_user_id_status_idx" ON "platform_jobs" USING btree ("user_id","status");--> statement-breakpoint
CREATE INDEX "partner_inquiries_created_at_idx" ON "partner_inquiries" USING btree ("created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "permission_requests_user_id_status_idx" ON "permission_requests" USING btree ("user_id","status");--> statement-breakpoint
CREATE INDEX "rate_limit_windows_expire_idx" ON "rate_limit_windows" USING btree ("expire");--> statement-breakpoint
CREATE INDEX "scheduled_tasks_due_idx" ON "scheduled_tasks" USING btree ("next_run") WHERE "scheduled_tasks"."enabled" and "scheduled_tasks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "scheduled_tasks_status_claimed_at_idx" ON "scheduled_tasks" USING btree ("status","claimed_at");--> statement-breakpoint
CREATE INDEX "scheduled_tasks_user_id_created_at_idx" ON "scheduled_tasks" USING btree ("user_id","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "scheduled_tasks_agent_id_idx" ON "scheduled_tasks" USING btree ("agent_id");