import { openGatewayToken } from "@svc/common";
import type { Database } from "@svc/db";
import { agents } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import type { JobProcessor } from "../jobs/processors";

export const GATEWAY_CHAT_TIMEOUT_MS = 30_000;

export interface ChatProcessorDeps {
  db: Database;
  /** DATA_ENCRYPTION_KEY: opens the agent's stored gateway token. */
  dataEncryptionKey: string | undefined;
  timeoutMs?: number;
}

interface ChatPayload {
  userId: string;
  agentId: string;
  gatewayUrl: string;
  message: string;
  systemPrompt: string | null;
}

/**
 * `gateway_chat_completion`: POSTs the message to the agent runtime's OpenAI-compatible
 * `{gatewayUrl}/v1/chat/completions` with the agent's gateway token (read from the database, never from
 * the job), 30 s timeout, and returns `{reply, model, usage}`.
 */
export function gatewayChatProcessor(deps: ChatProcessorDeps): JobProcessor {
  const timeoutMs = deps.timeoutMs ?? GATEWAY_CHAT_TIMEOUT_MS;
  return async (job, { signal }) => {
    const payload = job.payload as unknown as ChatPayload;
    const rows = await deps.db
      .select({ token: agents.gatewayTokenEncrypted })
      .from(agents)
      .where(and(eq(agents.id, payload.agentId), eq(agents.userId, payload.userId)))
      .limit(1);
    if (!rows[0]) throw new Error(`agent ${payload.agentId} not found`);
    if (!rows[0].token || !deps.dataEncryptionKey) throw new Error("the agent has no gateway token");
    const token = openGatewayToken(deps.dataEncryptionKey, rows[0].token);

    const messages = [
      ...(payload.systemPrompt ? [{ role: "system", content: payload.systemPrompt }] : []),
      { role: "user", content: payload.message },
    ];
    const url = `${payload.gatewayUrl.replace(/\/+$/, "")}/v1/chat/completions`;
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ model: "openclaw", messages }),
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
    } catch (err) {
      if ((err as Error).name === "TimeoutError")
        throw new Error(`the agent gateway did not answer within ${timeoutMs / 1000} s`);
      throw new Error(
        `the agent gateway could not be reached (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`,
      );
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`the agent gateway answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    let body: { model?: string; usage?: unknown; choices?: Array<{ message?: { content?: unknown } }> };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error("the agent gateway answered with something that is not JSON");
    }
    const reply = body.choices?.[0]?.message?.content;
    if (typeof reply !== "string")
      throw new Error("the agent gateway's answer has no choices[0].message.content");
    return { reply, model: body.model ?? null, usage: body.usage ?? null };
  };
}
