import { HttpError } from "@svc/common";

/** The runtime area's failures (instances, lifecycle operations, the agent proxy), one constructor per code. */
export const runtimeInstanceNotFound = (instanceId: string) =>
  new HttpError(404, "not_found", `no runtime instance ${instanceId}`);
export const actionFailed = (action: string, err: Error) =>
  new HttpError(500, "action_failed", `${action} failed: ${err.message}`);
export const agentNotDeployed = () =>
  new HttpError(409, "agent_not_deployed", "the agent has no deployed runtime yet");
export const runtimeControlsDisabled = () =>
  new HttpError(
    503,
    "runtime_controls_disabled",
    "runtime controls are disabled (ENABLE_RUNTIME_CONTROLS=false)",
  );
/** An operation that needs the token; repair creates one. */
export const gatewayTokenMissing = () =>
  new HttpError(409, "no_gateway_token", "the agent has no gateway token; run repair to create one");
/** Reading the token itself. */
export const noGatewayToken = () => new HttpError(404, "no_gateway_token", "the agent has no gateway token");
export const invalidLines = () =>
  new HttpError(400, "invalid_lines", "lines must be an integer from 1 to 500");
export const noAgentInProxyPath = () => new HttpError(404, "not_found", "no agent in the proxy path");
export const bearerRequired = () =>
  new HttpError(401, "unauthorized", "Authorization: Bearer <token> required");
export const notAgentGatewayToken = () =>
  new HttpError(403, "forbidden", "the token is not this agent's gateway token");
/** `code` is the socket error's code (ECONNREFUSED, …) when there is one. */
export const agentUnreachable = (code: string | undefined) =>
  new HttpError(502, "agent_unreachable", `the agent could not be reached${code ? ` (${code})` : ""}`);
/** The agent's address answered, but not as the agent (its wrapper did not prove it): nothing was sent. */
export const agentNotProven = (message: string) => new HttpError(502, "agent_unreachable", message);
export const agentTimeout = (timeoutMs: number) =>
  new HttpError(504, "agent_timeout", `the agent did not answer within ${timeoutMs / 1000} s`);
