"use client";

import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { ApiError, api, messageOf, useAgentNames, usePolling } from "@/components/data";
import { Alert, Card, DateTime, EmptyState, JsonFields, PageHeader, StatusBadge } from "@/components/ui";
import type { PlatformJob } from "@/lib/platform-jobs/inputs";
import { JOB_TYPE_LABELS, progressOf, statusWord } from "../job-format";
import styles from "../jobs.module.css";

/** How often a queued or running job is re-read. */
const JOB_POLL_MS = 2_000;

/** One of the user's jobs: where it is, its attempts, its error or result, and what it was asked to do. */
export function JobView({ jobId }: { jobId: string }) {
  const [job, setJob] = useState<PlatformJob | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const { nameOf } = useAgentNames();

  const load = useCallback(async () => {
    try {
      setJob((await api<{ job: PlatformJob }>(`/api/jobs/${encodeURIComponent(jobId)}`)).job);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  }, [jobId]);
  useEffect(() => {
    void load();
  }, [load]);
  const active = job?.status === "queued" || job?.status === "running";
  usePolling(load, JOB_POLL_MS, { enabled: active });

  const back = <Link href="/dashboard/jobs">← All jobs</Link>;
  if (error instanceof ApiError && error.status === 404) {
    return (
      <>
        <PageHeader title="Job not found" description={back} />
        <EmptyState title="There is no such job of yours">
          It may belong to another account, or the address is wrong.
        </EmptyState>
      </>
    );
  }
  return (
    <>
      <PageHeader title={job ? JOB_TYPE_LABELS[job.jobType] : "Job"} description={back} />
      <Alert message={error ? messageOf(error) : null} />
      {job ? (
        <div className="grid">
          <Card title="Status" testId="job-status" className={styles.wide}>
            <p aria-live="polite">
              <StatusBadge status={statusWord(job)} /> {progressOf(job)}
            </p>
            <dl className="facts">
              <div>
                <dt>Job</dt>
                <dd>
                  <code>{job.id}</code>
                </dd>
              </div>
              <div>
                <dt>Type</dt>
                <dd>
                  <code>{job.jobType}</code>
                </dd>
              </div>
              <div>
                <dt>Lane</dt>
                <dd>
                  <code>{job.lane}</code>
                </dd>
              </div>
              <div>
                <dt>Attempts</dt>
                <dd>
                  {job.attempts} of {job.maxAttempts}
                </dd>
              </div>
              {job.progress && job.status !== "running" ? (
                <div>
                  <dt>Last step</dt>
                  <dd>{job.progress}</dd>
                </div>
              ) : null}
              <div>
                <dt>Agent</dt>
                <dd>{job.agentId ? nameOf(job.agentId) : "—"}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <DateTime value={job.createdAt} />
                </dd>
              </div>
              <div>
                <dt>Started</dt>
                <dd>
                  <DateTime value={job.startedAt} />
                </dd>
              </div>
              <div>
                <dt>{job.status === "queued" ? "Runs at" : "Finished"}</dt>
                <dd>
                  <DateTime value={job.status === "queued" ? job.runAt : job.completedAt} />
                </dd>
              </div>
            </dl>
          </Card>
          {job.error ? (
            <Card title={job.status === "failed" ? "Error" : "Last attempt's error"} testId="job-error">
              <p className={styles.errorFull}>{job.error}</p>
            </Card>
          ) : null}
          {job.result ? (
            <Card title="Result" testId="job-result">
              <JsonFields value={job.result} agentName={nameOf} testId="job-result-fields" />
              <details>
                <summary>As JSON</summary>
                <pre className={styles.json}>{JSON.stringify(job.result, null, 2)}</pre>
              </details>
            </Card>
          ) : null}
          <Card title="Input" description="What the job was asked to do (sanitized)" testId="job-input">
            <JsonFields value={job.payload} agentName={nameOf} />
            <details>
              <summary>As JSON</summary>
              <pre className={styles.json}>{JSON.stringify(job.payload, null, 2)}</pre>
            </details>
          </Card>
        </div>
      ) : error ? null : (
        <p className="muted">Loading…</p>
      )}
    </>
  );
}
