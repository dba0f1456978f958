/**
 * The backend's part of the setup checklist (its `GET /api/setup`: AI provider, hosting driver, agent
 * runtime), read with the internal key and kept a few seconds: pages ask on every render, and the answer only
 * changes when the backend restarts or installs a runtime.
 */
import { HttpError } from "@svc/common";
import { type BackendSetup, backendSetupSchema } from "@svc/common/setup";
import type { WebContext } from "../infra/context";
import { answerJson, callBackend } from "../runtime/backend-client";

export type BackendFacts = { reachable: true; setup: BackendSetup } | { reachable: false; reason: string };

/** How long one answer (or one failure) is reused. */
export const BACKEND_FACTS_TTL_MS = 10_000;
/** A page waits at most this long for the backend. */
const BACKEND_FACTS_TIMEOUT_MS = 3_000;

const cache = new WeakMap<object, { at: number; facts: Promise<BackendFacts> }>();

export function backendFactsOf(ctx: Pick<WebContext, "config" | "clock">): Promise<BackendFacts> {
  const now = ctx.clock.now().getTime();
  const hit = cache.get(ctx.config);
  if (hit && now - hit.at < BACKEND_FACTS_TTL_MS) return hit.facts;
  const facts = readBackendFacts(ctx.config);
  cache.set(ctx.config, { at: now, facts });
  return facts;
}

async function readBackendFacts(config: WebContext["config"]): Promise<BackendFacts> {
  try {
    const answer = await callBackend(config, {
      method: "GET",
      path: "/api/setup",
      timeoutMs: BACKEND_FACTS_TIMEOUT_MS,
    });
    if (answer.status !== 200)
      return { reachable: false, reason: `the backend answered HTTP ${answer.status} to GET /api/setup` };
    const parsed = backendSetupSchema.safeParse(answerJson(answer));
    if (!parsed.success)
      return { reachable: false, reason: "the backend's GET /api/setup answer has an unexpected shape" };
    return { reachable: true, setup: parsed.data };
  } catch (err) {
    // callBackend's 502 `backend_unavailable` says why (unreachable, timed out, no INTERNAL_API_KEY).
    if (err instanceof HttpError) return { reachable: false, reason: err.message };
    throw err;
  }
}
