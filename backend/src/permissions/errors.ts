import { HttpError } from "@svc/common";

/** The permissions area's failures, one constructor per code (the body is `{error: code, message}`). */
export const permissionNotFound = () =>
  new HttpError(404, "permission_not_found", "permission request not found");
export const unauthorized = (message: string) => new HttpError(401, "unauthorized", message);
/** A user's API key without the scope the route needs (the web's routes answer the same). */
export const insufficientScope = (scope: string) =>
  new HttpError(403, "insufficient_scope", `this API key does not have the ${scope} scope`, { scope });
export const notThisAgent = () =>
  new HttpError(403, "forbidden", "agentId is not the agent of this gateway token");
export const tooManyWaits = (max: number) =>
  new HttpError(
    429,
    "too_many_waits",
    `this agent already has ${max} decision polls waiting; poll again once one has ended`,
  );
export const gatewayTokensUnusable = () =>
  new HttpError(
    503,
    "data_encryption_key_unset",
    "DATA_ENCRYPTION_KEY is not configured: gateway tokens cannot be checked",
  );
