import { HttpError } from "@svc/common";

/** The chat area's failures, one constructor per code. */
export const noRuntimeInstance = () => new HttpError(404, "no_runtime_instance", "no runtime instance");
export const noGatewayToken = () => new HttpError(503, "no_gateway_token", "no gateway token available");
export const backendQueueError = () => new HttpError(502, "backend_queue_error", "backend queue error");
export const jobNotFound = () => new HttpError(404, "job_not_found", "job not found");
export const workloadLimit = (retryAfterSeconds: number) =>
  new HttpError(429, "workload_limit", "too many chat messages in progress; try again shortly", {
    retryAfterSeconds,
  });
export const workloadBusy = (retryAfterSeconds: number) =>
  new HttpError(429, "workload_busy", "another chat message is being queued; try again shortly", {
    retryAfterSeconds,
  });
