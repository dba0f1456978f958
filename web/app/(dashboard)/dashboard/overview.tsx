"use client";

import Link from "next/link";
import { messageOf, type Resource, useAgentNames, usePolling, useResource } from "@/components/data";
import {
  Alert,
  Card,
  type Column,
  DataTable,
  DateTime,
  EmptyState,
  Notice,
  PageHeader,
  StatusBadge,
} from "@/components/ui";
import type { AccountSummary, TrialStatus } from "@/lib/accounts/service";
import type { JobPage, PlatformJob } from "@/lib/platform-jobs/inputs";
import type { SetupStatus } from "@/lib/setup/inputs";
import { useSessionUser } from "../session-user";
import type { AgentHealth } from "./agent/use-agent-runtime";
import { LiveConnection } from "./approvals/live-status";
import { usePendingPermissions } from "./approvals/use-pending-permissions";
import { type AgentNameOf, JOB_TYPE_LABELS, outcomeOf, progressOf, statusWord } from "./jobs/job-format";
import styles from "./overview.module.css";
import { SetupChecklist } from "./setup-checklist";

/** How often the overview re-reads the agent's health and the recent jobs while visible. */
const OVERVIEW_POLL_MS = 10_000;
const RECENT_JOBS = 5;

const recentColumns = (agentName: AgentNameOf): Column<PlatformJob>[] => [
  {
    header: "Job",
    cell: (job) => (
      <Link href={`/dashboard/jobs/${encodeURIComponent(job.id)}`}>{JOB_TYPE_LABELS[job.jobType]}</Link>
    ),
  },
  { header: "Status", cell: (job) => <StatusBadge status={statusWord(job)} /> },
  { header: "Progress", cell: (job) => progressOf(job), hideOnNarrow: true },
  {
    header: "Result or error",
    cell: (job) => <span className={styles.clamp}>{outcomeOf(job, agentName)}</span>,
    hideOnNarrow: true,
  },
];

function AgentCard({ health }: { health: Resource<AgentHealth> }) {
  const status = health.data?.status;
  if (status === "no_agent") {
    return (
      <Card title="Your agent" testId="overview-agent">
        <EmptyState
          title="You have no agent yet"
          action={
            <Link className="btn btn-primary" href="/dashboard/agent" data-testid="overview-deploy">
              Deploy your agent
            </Link>
          }
        >
          Deploy it first: it takes a minute, and then you can chat with it here.
        </EmptyState>
      </Card>
    );
  }
  return (
    <Card
      title="Your agent"
      testId="overview-agent"
      footer={<Link href="/dashboard/agent">Manage your agent →</Link>}
    >
      {health.error ? <Alert message={messageOf(health.error)} /> : null}
      {status ? (
        <>
          <p data-testid="overview-agent-status">
            <StatusBadge status={status} />{" "}
            {health.data?.statusReason && status !== "running" ? (
              <span className="muted">{health.data.statusReason}</span>
            ) : null}
          </p>
          <dl className="facts">
            <div>
              <dt>Agent</dt>
              <dd data-testid="overview-agent-name">{health.data?.agentName ?? health.data?.agentId}</dd>
            </div>
            {health.data?.checkedAt ? (
              <div>
                <dt>Checked</dt>
                <dd>
                  <DateTime value={health.data.checkedAt} style="time" />
                </dd>
              </div>
            ) : null}
          </dl>
        </>
      ) : health.error ? null : (
        <p className="muted">Checking your agent…</p>
      )}
    </Card>
  );
}

function ApprovalsCard() {
  const { rows, more, status } = usePendingPermissions();
  const count = rows?.length;
  return (
    <Card
      title="Pending approvals"
      testId="overview-approvals"
      footer={<Link href="/dashboard/approvals">Open Approvals →</Link>}
    >
      <p className={styles.big} aria-live="polite" data-testid="overview-approvals-count">
        {count === undefined ? "…" : `${count}${more ? "+" : ""}`}
        <span className={styles.bigLabel}>
          {count === 1 ? " request waits for you" : " requests wait for you"}
        </span>
      </p>
      <LiveConnection status={status} />
    </Card>
  );
}

function RecentJobs() {
  const { nameOf } = useAgentNames();
  const jobs = useResource<JobPage>(`/api/jobs?limit=${RECENT_JOBS}`);
  usePolling(jobs.reload, OVERVIEW_POLL_MS);
  return (
    <Card title="Recent jobs" testId="overview-jobs" footer={<Link href="/dashboard/jobs">All jobs →</Link>}>
      {jobs.error ? <Alert message={messageOf(jobs.error)} /> : null}
      {jobs.data ? (
        <DataTable
          caption="Your most recent jobs"
          captionHidden
          columns={recentColumns(nameOf)}
          rows={jobs.data.jobs}
          rowKey={(job) => job.id}
          empty={<EmptyState title="No jobs yet">Deploys and chat messages show up here.</EmptyState>}
        />
      ) : jobs.error ? null : (
        <p className="muted">Loading…</p>
      )}
    </Card>
  );
}

function TrialCard() {
  const trial = useResource<TrialStatus>("/api/trial");
  return (
    <Card title="Free trial" footer={<Link href="/dashboard/settings">Account and referrals →</Link>}>
      {trial.error ? <Alert message={messageOf(trial.error)} /> : null}
      {trial.data ? (
        <p data-testid="trial">
          {trial.data.active ? (
            <>
              <StatusBadge status="active" />{" "}
              {`${trial.data.daysRemaining} ${trial.data.daysRemaining === 1 ? "day" : "days"} left (ends `}
              <DateTime value={trial.data.endsAt} style="date" />)
            </>
          ) : (
            "Your free trial has ended."
          )}
        </p>
      ) : trial.error ? null : (
        <p className="muted">Loading…</p>
      )}
    </Card>
  );
}

/**
 * The overview: what this server cannot do yet (an admin's setup checklist), the agent and its health (or
 * the deploy, when there is none yet), the trial, the pending approvals (live), and the most recent jobs.
 */
export function Overview({
  justVerified,
  returning,
  setup,
}: {
  justVerified: boolean;
  returning: boolean;
  setup: SetupStatus;
}) {
  const user = useSessionUser();
  const account = useResource<AccountSummary>("/api/account");
  const health = useResource<AgentHealth>("/api/runtime/health");
  usePolling(health.reload, OVERVIEW_POLL_MS);
  const noAgent = health.data?.status === "no_agent";
  // Something to set up leads the page; a server where all is ready keeps the checklist at its foot.
  const setupFirst = setup.capabilities
    ? setup.capabilities.some((c) => c.state !== "ready")
    : setup.unavailable.length > 0;

  return (
    <>
      <PageHeader
        title="Overview"
        description={`${returning ? "Welcome back" : "Welcome"}, ${user.name || user.email}.`}
      />
      {justVerified ? <Notice tone="success">Your email address is confirmed.</Notice> : null}
      {account.data && !account.data.emailVerified ? (
        <Notice tone="warning">Confirm your email address with the link we sent you.</Notice>
      ) : null}
      <Alert message={account.error ? messageOf(account.error) : null} />
      {setupFirst ? <SetupChecklist setup={setup} /> : null}
      {/* Without an agent, its deploy step leads the page; the cards below share the rows. */}
      {noAgent ? <AgentCard health={health} /> : null}
      <div className={`grid ${styles.cards}`}>
        {noAgent ? null : <AgentCard health={health} />}
        <TrialCard />
        <ApprovalsCard />
      </div>
      <RecentJobs />
      {setupFirst ? null : <SetupChecklist setup={setup} />}
    </>
  );
}
