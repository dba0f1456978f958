import { type Clock, isHttpError, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import express, { type ErrorRequestHandler, type RequestHandler, type Response, Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import { requireMatchingPlan, verifiedPlanOf } from "../auth/plan";
import { userContextOf, userContextSecret, verifyUserContext } from "../auth/user-context";
import type { BackendConfig } from "../config";
import { parseBody } from "../http/body";
import { errorAnswer, openAiErrorBody, openAiErrorFormat } from "../http/errors";
import {
  type AiBudgetConfig,
  type AiPlanBudget,
  type AiUsageSlot,
  aiPlanBudget,
  recordAiUsage,
  requestedModel,
  requireAllowedModel,
  reserveAiRequest,
} from "./budget";
import { type AiProviderClient, createAiProviderClient } from "./client";
import { aiProviderUnconfigured, unknownGatewayToken } from "./errors";
import { gatewayTokenChatAuth } from "./gateway-auth";
import { type ChatCompletionRequest, chatCompletionBody } from "./inputs";
import {
  type ChatAnswer,
  forwardChatCompletion,
  providerFailure,
  requireConfiguredProvider,
} from "./service";
import {
  meterEventStream,
  providerUsage,
  type TokenUsage,
  usageOfCompletion,
  withStreamUsage,
} from "./usage";

export type AiRoutesConfig = Pick<
  BackendConfig,
  | "INTERNAL_API_KEY"
  | "HMAC_SECRET"
  | "AI_PROVIDER"
  | "AI_PROVIDER_URL"
  | "AI_PROVIDER_KEY"
  | "AI_PROVIDER_TIMEOUT_MS"
  | "DATA_ENCRYPTION_KEY"
  | "REQUIRE_VERIFIED_EMAIL"
> &
  AiBudgetConfig;

/** OpenAI's path under the AI proxy: OpenAI-compatible clients (OpenClaw) post to `<baseUrl>/chat/completions`. */
export const CHAT_COMPLETIONS_PATH = "/api/ai/chat/completions";

/**
 * Largest request body of `CHAT_COMPLETIONS_PATH`: an agent's runtime sends its whole session (history, tool
 * results, its tool list) with every call, well past the 1 MB the rest of the API takes.
 */
const CHAT_COMPLETIONS_MAX_BODY = "8mb";

/**
 * Mounted ahead of the app's JSON parser: `CHAT_COMPLETIONS_PATH` reads its own body (up to
 * CHAT_COMPLETIONS_MAX_BODY) and answers every error, an unreadable body included, in OpenAI's shape.
 */
export function aiBodyParsing(): Router {
  const router = Router();
  // A route, not a mount: its last handler's next() goes on to the app's routes (the JSON parser skips a
  // body already read).
  router.post(CHAT_COMPLETIONS_PATH, openAiErrorFormat, express.json({ limit: CHAT_COMPLETIONS_MAX_BODY }));
  return router;
}

/**
 * `POST /api/ai/chat`: an OpenAI-compatible chat completion forwarded to the AI provider; JSON answers as
 * JSON, `stream: true` as server-sent events. Two ways in: an agent's own gateway token as Bearer (user and
 * plan from its account), or the internal key + signed user context + plan middleware (the web). Each user
 * has the budgets and model list of their plan (see `budget.ts`); `clock` places requests in their windows.
 * `POST /api/ai/chat/completions` is the same for agents' runtimes under OpenAI's path (the runtime's
 * provider `baseUrl` is `<backend>/api/ai`): gateway token only, errors in OpenAI's shape.
 */
export function aiRoutes(db: Database, config: AiRoutesConfig, clock: Clock = systemClock): Router {
  const client: AiProviderClient = createAiProviderClient({
    name: config.AI_PROVIDER,
    baseUrl: config.AI_PROVIDER_URL,
    apiKey: config.AI_PROVIDER_KEY,
    timeoutMs: config.AI_PROVIDER_TIMEOUT_MS,
  });
  const router = Router();
  /** The request body, asking for AI_DEFAULT_MODEL (which every plan may use) when it names no model or the platform's default. */
  const completionRequest = (body: unknown): ChatCompletionRequest => {
    const request = parseBody(chatCompletionBody, body);
    return { ...request, model: requestedModel(config, request.model) };
  };
  const chat: RequestHandler = async (req, res) => {
    const request = completionRequest(req.body);
    const budget = aiPlanBudget(config, verifiedPlanOf(res).plan);
    requireAllowedModel(budget, request.model);
    requireConfiguredProvider(client);
    const record = await countRequest(db, clock, res, budget);

    const clientGone = abortWhenClientLeaves(res);
    const answer = await forwardChatCompletion(client, withStreamUsage(request), clientGone);
    if (answer.kind === "json") {
      const ok = answer.status >= 200 && answer.status < 300;
      const usage = ok ? usageOfCompletion(request, answer.body) : providerUsage(answer.body);
      if (usage) await record(usage);
      res.status(answer.status).json(answer.body);
    } else {
      const metered = { ...answer, chunks: meterEventStream(request, answer.chunks, record) };
      await pipeEventStream(res, metered, clientGone);
    }
  };
  // The v1 gateway's AI plugins: the web took payment for the call, so no per-user budget; the model must
  // be one AI_MODELS allows.
  const paidChat: RequestHandler = async (req, res) => {
    const request = completionRequest(req.body);
    requireAllowedModel(aiPlanBudget(config, "gateway"), request.model);
    requireConfiguredProvider(client);
    const clientGone = abortWhenClientLeaves(res);
    const answer = await forwardChatCompletion(client, request, clientGone);
    if (answer.kind === "json") res.status(answer.status).json(answer.body);
    else await pipeEventStream(res, answer, clientGone);
  };
  router.post("/api/ai/gateway", requireInternalKey(config.INTERNAL_API_KEY), paidChat);
  router.post(CHAT_COMPLETIONS_PATH, gatewayTokenChatAuth(db, config), chat);
  // Whatever the gateway-token check let through (no Bearer, an unknown token, the internal key).
  router.post(CHAT_COMPLETIONS_PATH, () => {
    throw unknownGatewayToken();
  });
  router.post("/api/ai/chat", gatewayTokenChatAuth(db, config), chat);
  router.post(
    "/api/ai/chat",
    requireInternalKey(config.INTERNAL_API_KEY),
    verifyUserContext({ secret: userContextSecret(config), required: true }),
    requireMatchingPlan(db, { requireVerifiedEmail: config.REQUIRE_VERIFIED_EMAIL }),
    chat,
  );
  // The OpenAI SDK (OpenClaw's provider client) retries a 429 or 5xx after sleeping the whole `Retry-After`:
  // a spent budget (minutes to hours away) or a missing provider must end the agent's run now instead.
  router.use(((err, _req, res, next) => {
    if (res.locals.errorFormat === "openai" && !retryingSoonHelps(err)) res.set("x-should-retry", "false");
    next(err);
  }) as ErrorRequestHandler);
  return router;
}

/** Longest wait after which an automatic retry is still worth it (the OpenAI SDK's own longest backoff is 8 s). */
const RETRY_SOON_SECONDS = 60;

/** Whether a client's automatic retry could succeed: not without a provider, nor long before the budget refills. */
function retryingSoonHelps(err: unknown): boolean {
  if (!isHttpError(err)) return true;
  if (err.code === aiProviderUnconfigured().code) return false;
  const wait = err.extra?.retryAfterSeconds;
  return typeof wait !== "number" || wait <= RETRY_SOON_SECONDS;
}

/**
 * Counts the request against the user's budget (429 with `Retry-After` when spent) and returns how its
 * tokens get recorded. A plan taken from the headers means the database was unreachable a moment ago:
 * nothing can be counted then (the web's path only; an agent's token needs the database to be known).
 */
async function countRequest(
  db: Database,
  clock: Clock,
  res: Response,
  budget: AiPlanBudget,
): Promise<(usage: TokenUsage) => Promise<void>> {
  if (verifiedPlanOf(res).verifiedBy !== "database") {
    logField(res, "aiBudget", "not counted (database unreachable)");
    return async () => {};
  }
  const slot: AiUsageSlot = await reserveAiRequest(db, clock, budget, userContextOf(res).userId);
  return (usage) =>
    recordAiUsage(db, slot, usage).catch((err: unknown) => {
      logField(res, "aiUsage", `not recorded: ${err instanceof Error ? err.message : String(err)}`);
    });
}

function logField(res: Response, name: string, value: string): void {
  res.locals.logFields = { ...res.locals.logFields, [name]: value };
}

/** Aborts when the connection closes before our response finished (the caller went away). */
function abortWhenClientLeaves(res: Response): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * Writes each provider chunk as it arrives (no compression or buffering on this path, so a write is a
 * flush); a slow client holds the next chunk back until it drained the last (the provider's stream waits
 * meanwhile). A failure after the headers went out cannot change the status any more: it becomes an
 * OpenAI-style `data: {"error": {message, type, code}}` event before the end of the stream.
 */
async function pipeEventStream(
  res: Response,
  answer: Extract<ChatAnswer, { kind: "stream" }>,
  clientGone: AbortSignal,
): Promise<void> {
  res.status(answer.status).set({
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  res.flushHeaders();
  try {
    for await (const chunk of answer.chunks) {
      if (!res.write(chunk)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
      if (clientGone.aborted) break;
    }
  } catch (err) {
    if (!clientGone.aborted) {
      // The same mapping as an error before the stream, in the shape OpenAI puts in a stream.
      res.write(`data: ${JSON.stringify(openAiErrorBody(errorAnswer(providerFailure(err))))}\n\n`);
    }
  } finally {
    res.end();
  }
}
