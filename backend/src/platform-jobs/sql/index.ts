/** The platform job queue's SQL, one file per operation (graphile-worker's `src/sql/` shape). */
export { claimJobs } from "./claimJobs";
export { completeAndClaimJobs, type FinishedJob } from "./completeAndClaimJobs";
export { completeJob } from "./completeJob";
export { enqueueJob, type NewJob } from "./enqueueJob";
export { failJob } from "./failJob";
export { getJob } from "./getJob";
export { jobMetrics, type QueueMetrics } from "./jobMetrics";
export { listUserJobs, type UserJobFilter, type UserJobPosition } from "./listUserJobs";
export { refreshJobLock } from "./refreshJobLock";
export { releaseJobs } from "./releaseJobs";
export { reportJobProgress } from "./reportJobProgress";
export { requeueStaleJobs } from "./requeueStaleJobs";
export {
  type Claim,
  databaseClock,
  parseUtcTimestamp,
  QUEUE_SESSION_OPTIONS,
  QUEUE_TYPES,
  type Queryable,
  type QueueClock,
} from "./shared";
