import { type ApiOperation, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, session } from "../infra/openapi/responses";
import { agentIdQuery, heartbeatBody } from "./inputs";

/** The agent's heartbeat settings. */
export const heartbeatOperations: readonly ApiOperation[] = [
  ...(["get", "put", "delete"] as const).map(
    (method): ApiOperation => ({
      method,
      path: "/api/heartbeat",
      summary: {
        get: "Heartbeat settings",
        put: "Change heartbeat settings",
        delete: "Turn the heartbeat off",
      }[method],
      tags: ["agents"],
      auth: ["session", "apiKey"],
      scope: method === "get" ? "agent:read" : "agent:write",
      query: z.object({ agentId: agentIdQuery }),
      ...(method === "put" ? { body: heartbeatBody } : {}),
      success: { status: 200, description: "the settings and where they live", schema: jsonObject },
      errors: {
        ...session,
        ...(method === "get" ? session : crossSite),
        400: "bad input",
        404: "not the user's agent",
      },
    }),
  ),
];
