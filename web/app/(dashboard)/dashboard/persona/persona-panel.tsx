"use client";

import Link from "next/link";
import { ApiError, api, messageOf, useResource } from "@/components/data";
import { ActionForm, FormError, useAction } from "@/components/forms";
import { Alert, Card, DateTime, EmptyState, Notice, SelectField, StatusBadge } from "@/components/ui";
import {
  PERSONA_DIMENSIONS,
  type PersonaDimension,
  type PersonaRunResult,
  type PersonaSummary,
} from "@/lib/persona/inputs";
import { LineChart } from "./line-chart";

const LABELS: Record<PersonaDimension, string> = {
  voice: "Voice",
  emotion: "Emotion",
  knowledge: "Knowledge",
  refusal: "Refusal",
};
const percent = (v: number) => `${Math.round(v * 100)}%`;

/** The four scores as bars (the bar repeats the number, which is the text). */
function ScoreBars({ scores }: { scores: PersonaSummary["scores"] }) {
  return (
    <dl className="facts" data-testid="persona-scores">
      {PERSONA_DIMENSIONS.map((d) => {
        const value = scores[d];
        return (
          <div key={d} data-testid={`score-${d}`}>
            <dt>{LABELS[d]}</dt>
            <dd>
              <span>{value === null ? "not evaluated" : percent(value)}</span>
              <span
                aria-hidden="true"
                style={{
                  display: "block",
                  height: "0.6rem",
                  marginTop: "var(--space-1)",
                  background: "var(--surface-2)",
                  borderRadius: "var(--radius-sm)",
                  overflow: "hidden",
                }}
              >
                <span
                  style={{
                    display: "block",
                    height: "100%",
                    width: value === null ? 0 : percent(value),
                    background: "var(--accent)",
                  }}
                />
              </span>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** The agent's persona evaluation: scores, the overall score over time with drift marked, a run form. */
export function PersonaPanel({ runDisabled = false }: { runDisabled?: boolean }) {
  const summary = useResource<PersonaSummary>("/api/runtime/character-qa");
  const action = useAction();

  async function run(data: FormData) {
    const dimensions = PERSONA_DIMENSIONS.filter((d) => data.get(`dim-${d}`) === "on");
    if (dimensions.length === 0) throw new FormError("Choose at least one dimension.");
    const result = await api<PersonaRunResult>("/api/runtime/character-qa", {
      json: { probeSet: String(data.get("probeSet") ?? "default"), dimensions },
    });
    await summary.reload();
    return `Evaluation finished: overall ${percent(result.run.overallScore)}${
      result.run.driftDetected ? ", drift detected" : ""
    }.`;
  }

  if (summary.loading) return <p className="muted">Loading…</p>;
  if (summary.error instanceof ApiError && summary.error.code === "no_agent") {
    return (
      <EmptyState title="No agent deployed" action={<Link href="/dashboard/agent">Deploy your agent</Link>}>
        The persona evaluation runs on your agent.
      </EmptyState>
    );
  }
  const data = summary.data;
  const latest = data?.history.at(-1);
  return (
    <>
      <Alert message={summary.error ? messageOf(summary.error) : ""} />
      {data ? (
        <div className="grid">
          <Card
            title="Scores"
            testId="persona-scores-card"
            description={
              latest ? (
                <>
                  Latest run <DateTime value={latest.timestamp} />
                </>
              ) : (
                "No run yet."
              )
            }
            actions={
              data.driftDetected ? (
                <StatusBadge status="drift" tone="bad" testId="persona-drift">
                  drift detected
                </StatusBadge>
              ) : latest ? (
                <StatusBadge status="stable" tone="ok" testId="persona-drift">
                  no drift
                </StatusBadge>
              ) : null
            }
          >
            <ScoreBars scores={data.scores} />
            {data.overallScore !== null ? (
              <p data-testid="persona-overall">
                Overall: <strong>{percent(data.overallScore)}</strong>
              </p>
            ) : null}
          </Card>
          <Card title="Overall score over time" testId="persona-trend">
            {data.history.length === 0 ? (
              <EmptyState title="No evaluations yet">Run one below.</EmptyState>
            ) : (
              <LineChart
                title="Overall persona score per run"
                testId="persona-chart"
                points={data.history.map((h) => ({
                  id: h.id,
                  at: h.timestamp,
                  value: h.overallScore,
                  marked: h.driftDetected,
                }))}
              />
            )}
          </Card>
        </div>
      ) : null}
      {data?.driftDetected ? (
        <Notice tone="warning" testId="persona-drift-notice">
          The latest run scored more than 15 points below the mean of the three runs before it.
        </Notice>
      ) : null}
      <Card
        title="Run an evaluation"
        description="Probe prompts go to your agent's model, which then judges each answer."
      >
        <ActionForm
          action={action}
          label="Run a persona evaluation"
          onSubmit={run}
          submit="Run evaluation"
          busyLabel="Evaluating…"
          disabled={runDisabled}
        >
          <SelectField label="Probe set" name="probeSet" defaultValue="default">
            <option value="default">default (3 prompts per dimension)</option>
            <option value="quick">quick (1 prompt per dimension)</option>
          </SelectField>
          <fieldset style={{ border: 0, padding: 0, margin: "var(--space-3) 0" }}>
            <legend>Dimensions</legend>
            {PERSONA_DIMENSIONS.map((d) => (
              <label
                key={d}
                style={{
                  marginRight: "var(--space-4)",
                  display: "inline-flex",
                  alignItems: "center",
                  gap: "var(--space-1)",
                }}
              >
                <input type="checkbox" name={`dim-${d}`} defaultChecked /> {LABELS[d]}
              </label>
            ))}
          </fieldset>
        </ActionForm>
      </Card>
    </>
  );
}
