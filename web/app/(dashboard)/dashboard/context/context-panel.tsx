"use client";

import { useRef, useState } from "react";
import { api, messageOf, useResource } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Alert, Button, Card, DataTable, EmptyState, Field, Notice, StatusBadge } from "@/components/ui";
import type { InitDeepAnswer, InitDeepStatus } from "@/lib/initdeep/inputs";

type Row = InitDeepAnswer["results"][number];

/** The priority directories' AGENTS.md status, and a form to preview (dry run) or generate the files. */
export function ContextPanel() {
  const status = useResource<InitDeepStatus>("/api/init-deep");
  const form = useRef<HTMLFormElement>(null);
  const [answer, setAnswer] = useState<InitDeepAnswer | null>(null);
  const action = useAction({ fields: ["path", "maxDepth"] });

  async function generate(data: FormData, dryRun: boolean) {
    const depthText = String(data.get("maxDepth") ?? "").trim();
    setAnswer(null);
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
  }

  function dryRun() {
    const element = form.current;
    if (element) void action.run(() => generate(new FormData(element), true), "dry");
  }

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
        <form
          method="post"
          ref={form}
          onSubmit={action.onSubmit((data) => generate(data, false), "write")}
          aria-label="Generate AGENTS.md files"
        >
          <Field
            label="Path (inside the project; empty: the whole project)"
            name="path"
            placeholder="web/lib"
            error={action.fieldErrors.path}
          />
          <Field
            label="Depth"
            name="maxDepth"
            type="number"
            min={0}
            max={10}
            defaultValue={5}
            error={action.fieldErrors.maxDepth}
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
              busy={action.running === "dry"}
              busyLabel="Checking…"
              disabled={action.busy}
              onClick={dryRun}
            >
              Dry run
            </Button>
            <Button
              type="submit"
              busy={action.running === "write"}
              busyLabel="Generating…"
              disabled={action.busy}
            >
              Generate
            </Button>
          </div>
        </form>
        <ActionStatus action={action} />
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
