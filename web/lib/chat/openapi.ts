import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
import { chatMessageBody } from "./inputs";

/** Chatting with the user's agent. */
export const chatOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/gateway/chat",
    summary: "Send a chat message to the user's newest agent (a queued job)",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "chat:write",
    backendRoutes: ["POST /api/platform-jobs/chat"],
    body: chatMessageBody,
    success: {
      status: 202,
      description: "`{success, queued, jobId, status, agentId, agentName}`",
      schema: z.object({ success: z.boolean(), queued: z.boolean(), jobId: z.string() }).loose(),
    },
    errors: {
      ...session,
      400: "bad body",
      403: "a state-changing request from another site, or `email_not_verified` (the account's email is not confirmed)",
      404: "the user has no agent",
      429: "too many chats in flight",
      502: "the backend could not be reached",
      503: "no gateway token is available for the agent (`no_gateway_token`)",
    },
  },
];
