import { z } from "zod";

/** The four dimensions a persona is evaluated on. */
export const PERSONA_DIMENSIONS = ["voice", "emotion", "knowledge", "refusal"] as const;
export const personaDimension = z.enum(PERSONA_DIMENSIONS, {
  error: `must be one of ${PERSONA_DIMENSIONS.join(", ")}`,
});
export type PersonaDimension = z.infer<typeof personaDimension>;

/** `POST /api/runtime/character-qa` body: `{probeSet?, dimensions?}`. */
export const characterRunBody = z.strictObject({
  probeSet: z.string().trim().min(1, "must not be empty").max(64).default("default"),
  dimensions: z
    .array(personaDimension, "must be a list of dimensions")
    .min(1, "must name at least one dimension")
    .default([...PERSONA_DIMENSIONS]),
});
export type CharacterRunInput = z.infer<typeof characterRunBody>;

const score = z.number().min(0).max(1);

/** One evaluation run in the history. */
export const personaRun = z
  .object({
    id: z.string(),
    timestamp: z.string(),
    probeSet: z.string(),
    dimensions: z.array(z.string()),
    overallScore: score,
    driftDetected: z.boolean(),
    scores: z.record(z.string(), score).optional(),
  })
  .meta({ id: "PersonaRun" });
export type PersonaRun = z.infer<typeof personaRun>;

/** `GET /api/runtime/character-qa`: the latest scores, drift, and every run oldest first. */
export const personaSummary = z
  .object({
    scores: z.object({
      voice: score.nullable(),
      emotion: score.nullable(),
      knowledge: score.nullable(),
      refusal: score.nullable(),
    }),
    overallScore: score.nullable().default(null),
    driftDetected: z.boolean(),
    history: z.array(personaRun),
  })
  .meta({ id: "PersonaEvaluation" });
export type PersonaSummary = z.infer<typeof personaSummary>;

/** A probe of a run: the prompt, the agent's answer and the judge's score. */
export const personaProbe = z.object({
  dimension: z.string(),
  prompt: z.string(),
  answer: z.string(),
  score,
});

const runWithProbes = personaRun.extend({ probes: z.array(personaProbe).optional() });

/** `POST /api/runtime/character-qa`: the new run (with its probes) and the summary after it. */
export const personaRunResult = personaSummary
  .extend({ run: runWithProbes })
  .meta({ id: "PersonaRunResult" });
export type PersonaRunResult = z.infer<typeof personaRunResult>;

/**
 * The agent's answer to `POST /api/eval/character/run`: the summary after the run, the new run last of
 * `history` ("the evaluation results including the new run"); our wrapper also names it, with its
 * probes, under `run`.
 */
export const agentRunAnswer = personaSummary.extend({ run: runWithProbes.optional() });
export type AgentRunAnswer = z.infer<typeof agentRunAnswer>;
