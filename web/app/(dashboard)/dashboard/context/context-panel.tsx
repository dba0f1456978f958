"use client";

import { type FormEvent, useRef, useState } from "react";
import { api, fieldOf, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, DataTable, EmptyState, Field, Notice, StatusBadge } from "@/components/ui";
import type { InitDeepAnswer, InitDeepStatus } from "@/lib/initdeep/inputs";

type Row = InitDeepAnswer["results"][number];

/** The priority directories' AGENTS.md status, and a form to preview (dry run) or generate the files. */
export function ContextPanel() {
  const status = useResource<InitDeepStatus>("/api/init-deep");
  const form = useRef<HTMLFormElement>(null);
  const [busy, setBusy] = useState<"dry" | "write" | null>(null);
  const [answer, setAnswer] = useState<InitDeepAnswer | null>(null);
  const [error, setError] = useState("");
  const [fieldErrors, setFieldErrors] = useState<{ path?: string; maxDepth?: string }>({});

  async function submit(dryRun: boolean) {
    if (!form.current) return;
    const data = new FormData(form.current);
    const depthText = String(data.get("maxDepth") ?? "").trim();
    setError("");
    setFieldErrors({});
    setAnswer(null);
    setBusy(dryRun ? "dry" : "write");
    try {
      const result = await api<InitDeepAnswer>("/api/init-deep", {
        json: {
          path: String(data.get("path") ?? "").trim(),
          force: data.get("force") === "on",
          dryRun,
          ...(depthText ? { maxDepth: Number(depthText) } : {}),
        },
      });
      setAnswer(result);
      await status.reload();
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOf(err, ["path", "maxDepth"]);
      if (field === "path" || field === "maxDepth") setFieldErrors({ [field]: message });
      else setError(message);
    } finally {
      setBusy(null);
    }
  }

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void submit(false);
  };

  return (
    <>
      <Card
        title="Priority directories"
        testId="context-status"
        actions={
          status.data ? (
            <StatusBadge status={status.data.allGenerated ? "ok" : "pending"} testId="context-all">
              {status.data.allGenerated ? "all generated" : "some missing"}
            </StatusBadge>
          ) : null
        }
      >
        {status.loading ? <p className="muted">Loading…</p> : null}
        <Alert message={status.error ? messageOf(status.error) : ""} />
        {status.data ? (
          <DataTable
            caption="AGENTS.md in the priority directories"
            captionHidden
            testId="context-directories"
            rows={status.data.status}
            rowKey={(s) => s.directory}
            empty={<EmptyState title="None of the priority directories is present here" />}
            columns={[
              { header: "Directory", cell: (s) => <code>{s.directory}</code> },
              {
                header: "AGENTS.md",
                cell: (s) => (
                  <StatusBadge status={s.hasAgentsMd ? "ok" : "pending"}>
                    {s.hasAgentsMd ? "present" : "missing"}
                  </StatusBadge>
                ),
              },
            ]}
          />
        ) : null}
      </Card>
      <Card
        title="Generate"
        description="Walks the directories and writes an AGENTS.md into each one with source files. A dry run writes nothing."
      >
        <form method="post" ref={form} onSubmit={onSubmit} aria-label="Generate AGENTS.md files">
          <Field
            label="Path (inside the project; empty: the whole project)"
            name="path"
            placeholder="web/lib"
            error={fieldErrors.path}
          />
          <Field
            label="Depth"
            name="maxDepth"
            type="number"
            min={0}
            max={10}
            defaultValue={5}
            error={fieldErrors.maxDepth}
          />
          <label
            style={{
              display: "inline-flex",
              alignItems: "center",
              gap: "var(--space-2)",
              margin: "var(--space-2) 0",
            }}
          >
            <input type="checkbox" name="force" /> Replace existing AGENTS.md files
          </label>
          <div className="actions">
            <Button
              variant="secondary"
              busy={busy === "dry"}
              busyLabel="Checking…"
              disabled={busy !== null}
              onClick={() => submit(true)}
            >
              Dry run
            </Button>
            <Button type="submit" busy={busy === "write"} busyLabel="Generating…" disabled={busy !== null}>
              Generate
            </Button>
          </div>
        </form>
        <Alert message={error} />
        {answer ? (
          <>
            <Notice tone={answer.summary.errors > 0 ? "warning" : "success"} testId="context-summary">
              {answer.dryRun ? "Dry run, nothing written: " : ""}
              {answer.summary.total} directories, {answer.summary.generated}{" "}
              {answer.dryRun ? "would be generated" : "generated"}, {answer.summary.skipped} skipped,{" "}
              {answer.summary.errors} errors.
            </Notice>
            <DataTable<Row>
              caption="Directories"
              testId="context-results"
              rows={answer.results}
              rowKey={(r) => r.path}
              empty={<EmptyState title="No directory with source files there" />}
              columns={[
                { header: "Directory", cell: (r) => <code>{r.path}</code> },
                {
                  header: "Outcome",
                  cell: (r) =>
                    r.error ? (
                      <StatusBadge status="error">{r.error}</StatusBadge>
                    ) : r.skipped ? (
                      <StatusBadge status="skipped" tone="neutral">
                        skipped (has one)
                      </StatusBadge>
                    ) : (
                      <StatusBadge status="ok">{answer.dryRun ? "would generate" : "generated"}</StatusBadge>
                    ),
                },
              ]}
            />
          </>
        ) : null}
      </Card>
    </>
  );
}
