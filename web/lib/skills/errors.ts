import { HttpError } from "@svc/common";

/** The skills area's failures, one constructor per code. */
export const unknownSkill = (skillId: string) =>
  new HttpError(404, "unknown_skill", `no skill "${skillId}" is configured on this platform`);

/** A failed tool call: `{skillId, toolName, success: false, error}` (plus `code`). */
const callFailure = (status: number, code: string, skillId: string, toolName: string, error: string) =>
  new HttpError(status, code, error, { skillId, toolName, success: false });

export const skillNotActive = (skillId: string, toolName: string) =>
  callFailure(
    400,
    "skill_not_active",
    skillId,
    toolName,
    `skill "${skillId}" is not active: activate it first`,
  );
export const toolCallFailed = (skillId: string, toolName: string, error: string) =>
  callFailure(400, "tool_call_failed", skillId, toolName, error);
export const toolTransportFailed = (skillId: string, toolName: string, error: string) =>
  callFailure(500, "mcp_call_failed", skillId, toolName, error);
export const invalidToolParameters = (skillId: string, toolName: string, error: string) =>
  callFailure(400, "invalid_request", skillId, toolName, error);
/** A body the call refused before it was made (bad JSON, content type, not an object, too large), in the call's shape. */
export const toolCallBodyRefused = (skillId: string, toolName: string, refused: HttpError) =>
  callFailure(refused.status, refused.code, skillId, toolName, refused.message);
export const activationFailed = (skillId: string, error: string) =>
  new HttpError(500, "mcp_activation_failed", `skill "${skillId}" could not be started: ${error}`, {
    skillId,
    success: false,
  });
