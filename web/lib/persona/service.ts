/**
 * Persona evaluation: the platform asks the user's agent, through the one agent
 * client with the agent's gateway token, for its evaluation summary (10 s) or to run an evaluation (15 s).
 * No agent: 404 `{status: "no_agent"}`; no answer in time, an error answer (e.g. the runtime's 503 without an
 * AI provider) or an unreadable one: 502 carrying the cause.
 */
import { AgentCallError, requestAgent } from "@svc/common";
import type { z } from "zod";
import { agentCredentials } from "../health/agent-gateway";
import type { WebContext } from "../infra/context";
import { newestAgentOf } from "../runtime/operations";
import { agentUnreachable, noAgentDeployed } from "./errors";
import {
  agentRunAnswer,
  type CharacterRunInput,
  type PersonaRunResult,
  type PersonaSummary,
  personaSummary,
} from "./inputs";

/** How long the agent has for a summary (10 s) and for a run (15 s). */
export const PERSONA_READ_TIMEOUT_MS = 10_000;
export const PERSONA_RUN_TIMEOUT_MS = 15_000;

type Ctx = Pick<WebContext, "db" | "config">;

/** The message of an agent's error body: `{error: {message}}` (runtime), `{error}` or `{message}`. */
function errorMessageOf(text: string): string | null {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === "object" && body.error !== null) {
      const message = (body.error as { message?: unknown }).message;
      if (typeof message === "string") return message;
    }
    if (typeof body.message === "string") return body.message;
    if (typeof body.error === "string") return body.error;
  } catch {
    // not JSON: no message to carry
  }
  return null;
}

async function askAgent<S extends z.ZodType>(
  ctx: Ctx,
  userId: string,
  request: { method: "GET" | "POST"; path: string; body?: unknown; timeoutMs: number },
  schema: S,
): Promise<z.infer<S>> {
  const agent = await newestAgentOf(ctx.db, userId);
  if (!agent?.url) throw noAgentDeployed();
  let answer: Awaited<ReturnType<typeof requestAgent>>;
  try {
    // The token goes only to the agent's own wrapper, once it proved it (see agentCredentials).
    const credentials = agentCredentials(ctx, agent);
    answer = await requestAgent(agent.url, {
      ...request,
      token: credentials?.token ?? null,
      identityKey: credentials?.identityKey,
    });
  } catch (err) {
    if (err instanceof AgentCallError) throw agentUnreachable(err.message);
    throw err;
  }
  if (answer.status < 200 || answer.status > 299) {
    const cause = errorMessageOf(answer.text);
    throw agentUnreachable(`the agent answered ${answer.status}${cause ? `: ${cause}` : ""}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    throw agentUnreachable("the agent's answer is not JSON");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw notAnEvaluation();
  return parsed.data;
}

const notAnEvaluation = () => agentUnreachable("the agent's answer is not a persona evaluation");

/** The agent's `GET /api/eval/character`: latest scores, drift, history. */
export function readPersonaEvaluation(ctx: Ctx, userId: string): Promise<PersonaSummary> {
  return askAgent(
    ctx,
    userId,
    { method: "GET", path: "/api/eval/character", timeoutMs: PERSONA_READ_TIMEOUT_MS },
    personaSummary,
  );
}

/**
 * The agent's `POST /api/eval/character/run`: the new run and the summary after it. The new run is the
 * answer's `run`, else the last of its `history`; an answer with neither is not an evaluation.
 */
export async function runPersonaEvaluation(
  ctx: Ctx,
  userId: string,
  input: CharacterRunInput,
): Promise<PersonaRunResult> {
  const answer = await askAgent(
    ctx,
    userId,
    { method: "POST", path: "/api/eval/character/run", body: input, timeoutMs: PERSONA_RUN_TIMEOUT_MS },
    agentRunAnswer,
  );
  const run = answer.run ?? answer.history.at(-1);
  if (!run) throw notAnEvaluation();
  return { ...answer, run };
}
