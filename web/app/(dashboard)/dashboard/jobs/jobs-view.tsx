"use client";

import Link from "next/link";
import { useCallback, useEffect, useRef, useState } from "react";
import { api, messageOf, useAgentNames, usePolling } from "@/components/data";
import {
  Alert,
  Button,
  type Column,
  DataTable,
  DateTime,
  EmptyState,
  PageHeader,
  SelectField,
  StatusBadge,
} from "@/components/ui";
import type { JobPage, PlatformJob } from "@/lib/platform-jobs/inputs";
import {
  type AgentNameOf,
  JOB_STATUSES,
  JOB_TYPE_LABELS,
  outcomeOf,
  progressOf,
  statusWord,
  subjectOf,
} from "./job-format";
import styles from "./jobs.module.css";

/** While any listed job is queued or running, the first page is re-read this often. */
const ACTIVE_POLL_MS = 3_000;
const PAGE_SIZE = 20;

const isFailure = (job: PlatformJob) => job.error !== null && job.status !== "completed";

/** The jobs table's columns; agents are named by `agentName`. */
export const jobColumns = (agentName: AgentNameOf): Column<PlatformJob>[] => [
  {
    header: "Job",
    cell: (job) => (
      <span className={styles.job}>
        <Link href={`/dashboard/jobs/${encodeURIComponent(job.id)}`} className={styles.jobLink}>
          {JOB_TYPE_LABELS[job.jobType]}
        </Link>
        <span className={styles.subject}>{subjectOf(job, agentName)}</span>
      </span>
    ),
  },
  {
    header: "Status",
    cell: (job) => (
      <span className={styles.status}>
        <StatusBadge status={statusWord(job)} />
        <span className={styles.progress}>{progressOf(job)}</span>
        {outcomeOf(job, agentName) ? (
          <span className={`${styles.narrowOnly} ${isFailure(job) ? styles.error : styles.outcome}`}>
            {outcomeOf(job, agentName)}
          </span>
        ) : null}
      </span>
    ),
  },
  { header: "Lane", cell: (job) => <code className={styles.lane}>{job.lane}</code>, hideOnNarrow: true },
  {
    header: "Attempts",
    cell: (job) => `${job.attempts} / ${job.maxAttempts}`,
    align: "end",
    hideOnNarrow: true,
  },
  { header: "Created", cell: (job) => <DateTime value={job.createdAt} />, hideOnNarrow: true },
  {
    header: "Result or error",
    cell: (job) => (
      <span className={isFailure(job) ? styles.error : styles.outcome}>{outcomeOf(job, agentName)}</span>
    ),
    hideOnNarrow: true,
  },
];

function queryOf(type: string, status: string, cursor?: string): string {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (type) params.set("type", type);
  if (status) params.set("status", status);
  if (cursor) params.set("cursor", cursor);
  return `/api/jobs?${params}`;
}

/** The user's platform jobs, newest first, filtered by type and status, a page at a time. */
export function JobsView() {
  const { nameOf } = useAgentNames();
  const [type, setType] = useState("");
  const [status, setStatus] = useState("");
  const [jobs, setJobs] = useState<PlatformJob[] | undefined>(undefined);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [loadingMore, setLoadingMore] = useState(false);
  /** Older pages were loaded: a refresh puts the first page on top and keeps them. */
  const extended = useRef(false);
  /** The first page of the filters chosen; a page read for filters since changed is dropped. */
  const firstPage = queryOf(type, status);
  const shown = useRef(firstPage);

  /** Re-reads the first page; older pages already shown are kept after it. */
  const refresh = useCallback(async () => {
    try {
      const page = await api<JobPage>(firstPage);
      if (shown.current !== firstPage) return;
      if (!extended.current) {
        setJobs(page.jobs);
        setNextCursor(page.nextCursor);
      } else {
        const fresh = new Set(page.jobs.map((j) => j.id));
        setJobs((current) => [...page.jobs, ...(current ?? []).filter((j) => !fresh.has(j.id))]);
      }
      setError("");
    } catch (err) {
      if (shown.current === firstPage) setError(messageOf(err));
    }
  }, [firstPage]);

  useEffect(() => {
    shown.current = firstPage;
    extended.current = false;
    setJobs(undefined);
    setNextCursor(null);
    void refresh();
  }, [firstPage, refresh]);

  const active = jobs?.some((job) => job.status === "queued" || job.status === "running") ?? false;
  usePolling(refresh, ACTIVE_POLL_MS, { enabled: active });

  const loadOlder = async () => {
    if (!nextCursor) return;
    setLoadingMore(true);
    try {
      const page = await api<JobPage>(queryOf(type, status, nextCursor));
      if (shown.current !== firstPage) return;
      extended.current = true;
      setJobs((current) => [...(current ?? []), ...page.jobs]);
      setNextCursor(page.nextCursor);
      setError("");
    } catch (err) {
      if (shown.current === firstPage) setError(messageOf(err));
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <>
      <PageHeader
        title="Jobs"
        description="Everything the platform did for you in the background: deploys, chat messages, repairs."
        actions={
          <Button variant="secondary" onClick={() => void refresh()}>
            Refresh
          </Button>
        }
      />
      <div className={styles.filters}>
        <SelectField label="Type" name="job-type" value={type} onChange={(e) => setType(e.target.value)}>
          <option value="">All types</option>
          {Object.entries(JOB_TYPE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <SelectField
          label="Status"
          name="job-status"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
        >
          <option value="">All statuses</option>
          {JOB_STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </SelectField>
      </div>
      <Alert message={error} />
      {jobs === undefined ? (
        <p className="muted">Loading…</p>
      ) : (
        <DataTable
          caption="Your jobs, newest first"
          captionHidden
          columns={jobColumns(nameOf)}
          rows={jobs}
          rowKey={(job) => job.id}
          testId="jobs-table"
          empty={
            <EmptyState title={type || status ? "No jobs match" : "No jobs yet"}>
              {type || status
                ? "Try another type or status."
                : "Deploying your agent or sending it a chat message starts a job."}
            </EmptyState>
          }
        />
      )}
      {nextCursor ? (
        <div className={styles.more}>
          <Button
            variant="secondary"
            busy={loadingMore}
            busyLabel="Loading…"
            onClick={() => void loadOlder()}
          >
            Older jobs
          </Button>
        </div>
      ) : null}
    </>
  );
}
