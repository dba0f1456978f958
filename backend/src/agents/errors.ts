import { HttpError } from "@svc/common";

/** The agents area's failures, one constructor per code (the body is `{error: code, message}`). */
export const agentNotFound = () => new HttpError(404, "agent_not_found", "agent not found");
export const agentNotDeployed = () =>
  new HttpError(409, "agent_not_deployed", "the agent has no deployed runtime yet");
