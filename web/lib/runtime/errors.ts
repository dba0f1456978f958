import { HttpError } from "@svc/common";

/** The runtime area's failures, one constructor per code. */
export const noAgent = () => new HttpError(404, "no_agent", "no agent deployed");
