/**
 * The job queue's metrics: jobs by lane and status and the oldest queued job's age (read from the database
 * at each scrape, so every process reports the whole queue), and the worker's claim and run durations.
 */
import { gauge, histogram } from "@svc/common/metrics/index";
import { platformJobLanes, platformJobStatuses } from "@svc/db/schema";
import { jobMetrics, type Queryable, type QueueClock } from "./sql";

export type JobRunOutcome = "completed" | "retried" | "failed" | "aborted";

function jobsGauge() {
  return gauge<"lane" | "status">({
    name: "platform_jobs",
    help: "Platform jobs in the queue's table by lane and status (queued, running, completed, failed)",
    labelNames: ["lane", "status"],
  });
}

function oldestQueuedGauge() {
  return gauge({
    name: "platform_jobs_oldest_queued_age_seconds",
    help: "Age of the oldest queued platform job (0 when none is queued)",
  });
}

function claimDuration() {
  return histogram<"statement">({
    name: "platform_job_claim_duration_seconds",
    help: "Time of a worker's claim statement: `claim` (free slots) or `complete_and_claim` (finished jobs' completions with the claim of their successors)",
    labelNames: ["statement"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  });
}

function runDuration() {
  return histogram<"lane" | "job_type" | "outcome">({
    name: "platform_job_run_duration_seconds",
    help: "Time of one job attempt in a worker, by lane, job type and outcome (completed, retried, failed, aborted)",
    labelNames: ["lane", "job_type", "outcome"],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  });
}

/** Reads the queue's counts into the gauges (every lane and status present, 0 when empty). */
export async function refreshJobGauges(db: Queryable, clock: QueueClock): Promise<void> {
  const { counts, oldestQueuedAgeSeconds } = await jobMetrics(db, clock);
  const jobs = jobsGauge();
  for (const lane of platformJobLanes)
    for (const status of platformJobStatuses) jobs.set({ lane, status }, 0);
  for (const { lane, status, count } of counts) jobs.set({ lane, status }, count);
  oldestQueuedGauge().set(oldestQueuedAgeSeconds);
}

export function observeJobClaim(statement: "claim" | "complete_and_claim", seconds: number): void {
  claimDuration().observe({ statement }, seconds);
}

export function observeJobRun(
  job: { lane: string; jobType: string },
  outcome: JobRunOutcome,
  seconds: number,
): void {
  runDuration().observe({ lane: job.lane, job_type: job.jobType, outcome }, seconds);
}
