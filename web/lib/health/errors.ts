import { HttpError } from "@svc/common";

/** The health area's failures, one constructor per code. */
export const agentNotFound = () => new HttpError(404, "agent_not_found", "agent not found");
