import { HttpError } from "@svc/common";

/** The agents area's failures, one constructor per code (the body is `{error: code, message}`). */
export const agentNotFound = () => new HttpError(404, "agent_not_found", "agent not found");
export const dataEncryptionKeyUnset = () =>
  new HttpError(
    503,
    "data_encryption_key_unset",
    "DATA_ENCRYPTION_KEY is not configured: gateway tokens cannot be stored or read",
  );
