import { HttpError } from "@svc/common";

/** The jobs area's failures, one constructor per code. A store failure keeps the database's message. */
const storeFailed = (code: string, message: string) => (err: unknown) =>
  new HttpError(500, code, message, { cause: String((err as Error).message) });
export const enqueueFailed = storeFailed("enqueue_failed", "the job could not be enqueued");
export const fetchFailed = storeFailed("fetch_failed", "the job could not be read");
export const listFailed = storeFailed("list_failed", "the jobs could not be listed");
export const metricsFailed = storeFailed("metrics_failed", "the queue metrics could not be read");
export const jobNotFound = (jobId: string) => new HttpError(404, "job_not_found", `no job ${jobId}`);
