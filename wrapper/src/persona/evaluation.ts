/**
 * Persona evaluation: each probe of the set goes to the agent through its
 * runtime, in a session of its own; the platform's AI proxy then judges the answer from 0 to 1 against the
 * persona's description and the dimension's criterion. A dimension's score is the mean of its probes',
 * `overallScore` the mean of the dimensions'. A run whose overall score falls more than DRIFT_THRESHOLD
 * below the mean of the previous DRIFT_WINDOW runs (fewer when there are fewer) is marked `driftDetected`.
 */
import { randomBytes } from "node:crypto";
import { type Clock, HttpError, type Logger, systemClock } from "@svc/common";
import {
  createJudgeClient,
  createRuntimeChatClient,
  type JudgeClient,
  judgeFailed,
  type RuntimeChatClient,
} from "./clients";
import {
  DEFAULT_PERSONA,
  DIMENSIONS,
  type Dimension,
  judgeMessages,
  parseScore,
  probesOf,
  type RunRequest,
} from "./probes";
import { createPersonaStore, type StoredRun } from "./store";

/** How far below the recent mean an overall score must fall to count as drift. */
export const DRIFT_THRESHOLD = 0.15;
/** Previous runs the drift baseline is the mean of. */
export const DRIFT_WINDOW = 3;
/** The judge's model when `AGENT_MODEL` is not set. */
export const DEFAULT_JUDGE_MODEL = "openai/gpt-4o-mini";

/** One run in the history (the stored run without its baseline). */
export type HistoryEntry = Omit<StoredRun, "baseline">;

/** `GET /api/eval/character`: the latest score of each dimension, the latest run's drift, every run oldest first. */
export interface PersonaSummary {
  scores: Record<Dimension, number | null>;
  overallScore: number | null;
  driftDetected: boolean;
  history: HistoryEntry[];
}

export interface JudgedProbe {
  dimension: Dimension;
  prompt: string;
  answer: string;
  score: number;
}

/** `POST /api/eval/character/run`: the new run with its probes, and the summary after it (the run last). */
export interface PersonaRunResult extends PersonaSummary {
  run: StoredRun & { probes: JudgedProbe[] };
}

export interface PersonaEvaluator {
  summary(): Promise<PersonaSummary>;
  /** Runs, scores and records an evaluation; `signal` gives it up (the caller went away). */
  run(request: RunRequest, signal?: AbortSignal): Promise<PersonaRunResult>;
}

export interface PersonaEvaluatorOptions {
  /** The runtime's origin on loopback, `http://127.0.0.1:<runtimePort>`. */
  runtimeUrl: string;
  /** The agent's gateway token (`OPENCLAW_GATEWAY_TOKEN`): Bearer for the runtime and the AI proxy. */
  gatewayToken: string | null | undefined;
  /** The platform backend (`PLATFORM_BACKEND_URL`); without it a run is a 503. */
  backendUrl: string | null | undefined;
  /** The judge's model (`AGENT_MODEL`); DEFAULT_JUDGE_MODEL when unset. */
  model?: string | null;
  /** The persona the judge scores against (`AGENT_PERSONA`); DEFAULT_PERSONA when unset. */
  persona?: string | null;
  /** `<OPENCLAW_STATE_DIR>/platform/persona.json`. */
  storePath: string;
  /** Removes the probes' runtime sessions after a run (OpenClaw's `sessions.delete`), so users never see them. */
  deleteSessions: (keys: string[]) => Promise<void>;
  clock?: Clock;
  logger?: Logger;
}

const notConfigured = (message: string) => new HttpError(503, "not_configured", message);

const round = (n: number) => Math.round(n * 10_000) / 10_000;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export function createPersonaEvaluator(options: PersonaEvaluatorOptions): PersonaEvaluator {
  const clock = options.clock ?? systemClock;
  const store = createPersonaStore(options.storePath);
  // The probes carry no persona: the agent answers as itself, its persona being its own workspace's
  // SOUL.md/IDENTITY in OpenClaw. Only the judge is told what the persona should be.
  const persona = options.persona?.trim() || DEFAULT_PERSONA;
  const token = options.gatewayToken ?? "";
  const backendUrl = options.backendUrl?.trim() ?? "";
  const runtime = createRuntimeChatClient({ baseUrl: `${options.runtimeUrl.replace(/\/+$/, "")}/v1`, token });
  const judge = backendUrl
    ? createJudgeClient({ backendUrl, token, model: options.model?.trim() || DEFAULT_JUDGE_MODEL })
    : null;

  const deleteProbeSessions = async (runId: string, keys: string[]) => {
    try {
      await options.deleteSessions(keys);
    } catch (err) {
      options.logger?.warn(
        { err, runId, sessions: keys.length },
        "persona evaluation: probe sessions not deleted",
      );
    }
  };

  return {
    summary: async () => summaryOf(await store.runs()),

    async run(request, signal) {
      if (!judge) {
        throw notConfigured(
          "no platform backend is configured for this agent (PLATFORM_BACKEND_URL is not set): nothing can judge the answers",
        );
      }
      if (!token) throw notConfigured("the agent has no gateway token (OPENCLAW_GATEWAY_TOKEN is not set)");
      const now = clock.now();
      const id = `eval_${now.getTime()}_${randomBytes(5).toString("hex")}`;
      const probes = probesOf(request);
      const keys = probes.map((_, n) => `persona-eval:${id}:${n}`);
      // The first failure fails the run: the calls still under way are given up.
      const giveUp = new AbortController();
      const aborted = signal ? AbortSignal.any([signal, giveUp.signal]) : giveUp.signal;
      const attempts = probes.map((probe, n) => judgeProbe(runtime, judge, persona, probe, keys[n], aborted));
      let judged: JudgedProbe[];
      try {
        judged = await Promise.all(attempts);
      } catch (err) {
        giveUp.abort();
        options.logger?.warn({ runId: id, err: (err as Error).message }, "persona evaluation failed");
        throw err;
      } finally {
        // Once no probe is under way any more, in the background: a run's answer does not wait for it.
        void Promise.allSettled(attempts).then(() => deleteProbeSessions(id, keys));
      }

      const scores = Object.fromEntries(
        request.dimensions.map((d) => [
          d,
          round(mean(judged.filter((p) => p.dimension === d).map((p) => p.score))),
        ]),
      );
      const overallScore = round(mean(Object.values(scores)));
      const runs = await store.record((previous) => {
        const window = previous.slice(-DRIFT_WINDOW);
        const baseline = window.length > 0 ? mean(window.map((r) => r.overallScore)) : null;
        return {
          id,
          timestamp: now.toISOString(),
          probeSet: request.probeSet,
          dimensions: request.dimensions,
          scores,
          overallScore,
          driftDetected: baseline !== null && baseline - overallScore > DRIFT_THRESHOLD,
          baseline: baseline === null ? null : round(baseline),
        };
      });
      const run = runs[runs.length - 1];
      options.logger?.info(
        { runId: id, probeSet: run.probeSet, overallScore, driftDetected: run.driftDetected },
        "persona evaluation recorded",
      );
      return { run: { ...run, probes: judged }, ...summaryOf(runs) };
    },
  };
}

/** One probe: the agent's answer, then the judge's score of it. */
async function judgeProbe(
  runtime: RuntimeChatClient,
  judge: JudgeClient,
  persona: string,
  probe: { dimension: Dimension; prompt: string },
  sessionKey: string,
  signal: AbortSignal,
): Promise<JudgedProbe> {
  const answer = await runtime.answer(probe.prompt, sessionKey, signal);
  const verdict = await judge.complete(judgeMessages(persona, probe, answer), signal);
  const score = parseScore(verdict);
  if (score === null) {
    throw judgeFailed(`the judge's answer carries no score: ${verdict.trim().slice(0, 120)}`);
  }
  return { ...probe, answer, score };
}

/** The summary of the kept runs (oldest first). */
export function summaryOf(runs: readonly StoredRun[]): PersonaSummary {
  const scores = Object.fromEntries(DIMENSIONS.map((d) => [d, null])) as Record<Dimension, number | null>;
  for (const run of runs) Object.assign(scores, run.scores);
  const last = runs.at(-1);
  return {
    scores,
    overallScore: last?.overallScore ?? null,
    driftDetected: last?.driftDetected ?? false,
    history: runs.map(({ id, timestamp, probeSet, dimensions, overallScore, driftDetected, scores }) => ({
      id,
      timestamp,
      probeSet,
      dimensions,
      overallScore,
      driftDetected,
      scores,
    })),
  };
}
