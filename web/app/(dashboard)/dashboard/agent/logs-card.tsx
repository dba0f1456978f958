"use client";

import { useState } from "react";
import { messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, EmptyState, SelectField } from "@/components/ui";
import type { RuntimeLogsAnswer } from "@/lib/runtime/inputs";

const LINE_CHOICES = [50, 100, 200, 500] as const;

/** The agent's last log lines (`GET /api/runtime/logs?lines=`), oldest first; refreshable. */
export function LogsCard() {
  const [lines, setLines] = useState<number>(100);
  const logs = useResource<RuntimeLogsAnswer>(`/api/runtime/logs?lines=${lines}`);
  return (
    <Card
      title="Logs"
      testId="agent-logs"
      description="The newest lines the agent wrote, oldest first."
      actions={
        <div className="inline-controls">
          <SelectField
            label="Lines"
            name="logLines"
            value={lines}
            onChange={(event) => setLines(Number(event.target.value))}
          >
            {LINE_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </SelectField>
          <Button variant="secondary" size="sm" onClick={() => logs.reload()} aria-label="Refresh logs">
            Refresh
          </Button>
        </div>
      }
    >
      {logs.loading ? <p className="muted">Loading…</p> : null}
      {logs.data && logs.data.lines.length === 0 ? (
        <EmptyState title="No log lines yet">The agent has not written anything.</EmptyState>
      ) : null}
      {logs.data && logs.data.lines.length > 0 ? <LogLines lines={logs.data.lines} /> : null}
      <Alert message={logs.error ? messageOf(logs.error) : null} />
    </Card>
  );
}

/** The lines in a keyboard-scrollable region; stderr lines stand out. */
function LogLines({ lines }: { lines: RuntimeLogsAnswer["lines"] }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <section className="logs" tabIndex={0} aria-label={`Last ${lines.length} log lines`}>
      <pre data-testid="agent-log-lines">
        {lines.map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: log lines have no identity but their place
          <span key={i} className={l.stream === "stderr" ? "log-line log-stderr" : "log-line"}>
            <time className="log-ts" dateTime={l.ts}>
              {l.ts.slice(11, 19)}
            </time>{" "}
            {l.stream === "stderr" ? <span className="log-tag">stderr </span> : null}
            {l.line}
            {"\n"}
          </span>
        ))}
      </pre>
    </section>
  );
}
