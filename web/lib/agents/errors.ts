import { HttpError } from "@svc/common";

/**
 * Another user's agent, or none: the same 404, `agent_not_found`. Renaming (`PATCH /api/agents/{agentId}`)
 * answers `not_found`, the code of a route's own missing resource.
 */
export const agentNotFound = (code: "agent_not_found" | "not_found" = "agent_not_found") =>
  new HttpError(404, code, "agent not found");
