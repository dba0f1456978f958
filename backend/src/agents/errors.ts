import { HttpError } from "@svc/common";

/** The agents area's failures, one constructor per code (the body is `{error: code, message}`). */
export const agentNotFound = () => new HttpError(404, "agent_not_found", "agent not found");
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
export const dataEncryptionKeyUnset = () =>
  new HttpError(
    503,
    "data_encryption_key_unset",
    "DATA_ENCRYPTION_KEY is not configured: gateway tokens cannot be stored or read",
  );
export const invalidLines = () =>
  new HttpError(400, "invalid_lines", "lines must be an integer from 1 to 500");
