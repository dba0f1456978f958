-- The step a running platform job last reported (the deploy's "installing the agent runtime 2026.4.11…"),
-- shown by the dashboard while the job runs; cleared when an attempt starts.
ALTER TABLE "platform_jobs" ADD COLUMN "progress" text;
