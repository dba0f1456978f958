import { HttpError } from "@svc/common";

/** The persona area's failures, one constructor per code. */
export const noAgentDeployed = () =>
  new HttpError(404, "no_agent", "no agent deployed", { status: "no_agent" });
/** The agent did not answer in time, could not be reached, or answered an error or something unreadable. */
export const agentUnreachable = (message: string) => new HttpError(502, "agent_unreachable", message);
