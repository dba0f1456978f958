export const dynamic = "force-dynamic";

import { chatMessageBody } from "@/lib/chat/inputs";
import { limitChatRate, queueChatMessage } from "@/lib/chat/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";
import { requireVerifiedUser } from "@/lib/sessions/require";

/** POST /api/gateway/chat (session, confirmed email) `{message}`: 202 `{success, queued, jobId, status, agentId, agentName}`. */
export const POST = route({ auth: { area: "chat", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireVerifiedUser(ctx, request);
  await limitChatRate(ctx, clientIp(request, ctx.config));
  // 32,000 characters of up to 4 UTF-8 bytes each, plus the JSON around them.
  const { message } = await readJson(request, chatMessageBody, { maxBytes: 160 * 1024 });
  return Response.json(await queueChatMessage(ctx, user.id, message), { status: 202 });
});
