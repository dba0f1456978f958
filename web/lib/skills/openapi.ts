import type { ApiOperation } from "@svc/common/openapi/index";
import { crossSite, session } from "../infra/openapi/responses";
import {
  activationAnswer,
  deactivationAnswer,
  skillIdParam,
  skillList,
  toolCallAnswer,
  toolCallBody,
  toolCallFailure,
  toolCallParams,
} from "./inputs";

/** The skills area's routes. */
export const skillsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/mcp",
    summary: "Every configured skill and the user's activation of it (tools and their input schemas)",
    tags: ["skills"],
    auth: ["session", "apiKey"],
    scope: "skills:read",
    success: { status: 200, description: "`{skills}`", schema: skillList },
    errors: session,
  },
  {
    method: "post",
    path: "/api/mcp/{skillId}",
    summary: "Start the skill's MCP server for the user: connect, initialize, list its tools",
    tags: ["skills"],
    auth: ["session", "apiKey"],
    scope: "skills:write",
    params: skillIdParam,
    success: {
      status: 200,
      description: "`{success, skillId, mcp: {name, version, tools, startedAt}}`",
      schema: activationAnswer,
    },
    errors: {
      ...session,
      ...crossSite,
      404: "no such skill",
      500: "the MCP server could not be reached or initialized",
    },
  },
  {
    method: "delete",
    path: "/api/mcp/{skillId}",
    summary: "End the user's activation of the skill",
    tags: ["skills"],
    auth: ["session", "apiKey"],
    scope: "skills:write",
    params: skillIdParam,
    success: { status: 200, description: "`{success, skillId, message}`", schema: deactivationAnswer },
    errors: { ...session, ...crossSite, 404: "no such skill" },
  },
  {
    method: "post",
    path: "/api/mcp/{skillId}/call/{toolName}",
    summary: "Call a tool of an active skill (30 s, answers up to 1 MB)",
    tags: ["skills"],
    auth: ["session", "apiKey"],
    scope: "skills:write",
    params: toolCallParams,
    body: toolCallBody,
    success: {
      status: 200,
      description: "`{skillId, toolName, success: true, result}`",
      schema: toolCallAnswer,
    },
    errors: {
      ...session,
      ...crossSite,
      400: {
        status: 400,
        description:
          "a body that is not a JSON object, the skill is not active, bad parameters, or the tool reported an error (`isError`)",
        schema: toolCallFailure,
      },
      404: "no such skill (before the body is read)",
      413: { status: 413, description: "a body over 1 MB", schema: toolCallFailure },
      500: {
        status: 500,
        description: "no usable answer from the MCP server (unreachable, 30 s, over 1 MB)",
        schema: toolCallFailure,
      },
    },
  },
];
