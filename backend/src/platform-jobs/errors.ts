import { HttpError } from "@svc/common";

/**
 * The jobs area's failures, one constructor per code. A store failure keeps the database's error as the
 * HttpError's `cause` (logged by the error mapper), never in the answer: its text can carry SQL.
 */
const storeFailed = (code: string, message: string) => (err: unknown) =>
  Object.assign(new HttpError(500, code, message), { cause: err });
export const enqueueFailed = storeFailed("enqueue_failed", "the job could not be enqueued");
export const fetchFailed = storeFailed("fetch_failed", "the job could not be read");
export const listFailed = storeFailed("list_failed", "the jobs could not be listed");
export const metricsFailed = storeFailed("metrics_failed", "the queue metrics could not be read");
export const jobNotFound = (jobId: string) => new HttpError(404, "job_not_found", `no job ${jobId}`);
