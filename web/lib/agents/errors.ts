import { HttpError } from "@svc/common";

/** Another user's agent, or none: the same 404. */
export const agentNotFound = () => new HttpError(404, "not_found", "agent not found");
