DROP INDEX "platform_jobs_status_locked_at_idx";--> statement-breakpoint
DROP INDEX "platform_jobs_user_id_status_idx";--> statement-breakpoint
CREATE INDEX "platform_jobs_running_locked_at_idx" ON "platform_jobs" USING btree ("locked_at") WHERE "platform_jobs"."status" = 'running';--> statement-breakpoint
CREATE INDEX "platform_jobs_user_id_active_idx" ON "platform_jobs" USING btree ("user_id") WHERE "platform_jobs"."status" in ('queued', 'running');