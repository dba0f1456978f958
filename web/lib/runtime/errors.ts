import { HttpError } from "@svc/common";

/** The runtime area's failures, one constructor per code. */
export const noAgent = () => new HttpError(404, "no_agent", "no agent deployed");
export const runtimeControlsDisabled = () =>
  new HttpError(503, "runtime_controls_disabled", "runtime controls are disabled on this platform");
export const backendUnavailable = (message: string) => new HttpError(502, "backend_unavailable", message);
export const backendQueueError = () =>
  new HttpError(502, "backend_queue_error", "the backend did not accept the provision job");
