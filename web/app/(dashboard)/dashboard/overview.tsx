"use client";

import Link from "next/link";
import { messageOf, useResource } from "@/components/data";
import { Alert, Card, Notice, PageHeader, StatusBadge } from "@/components/ui";
import type { AccountSummary, TrialStatus } from "@/lib/accounts/service";
import { useSessionUser } from "../session-user";

/** The overview: who is signed in, the trial, the email check, and where to go next. */
export function Overview({ justVerified }: { justVerified: boolean }) {
  const user = useSessionUser();
  const account = useResource<AccountSummary>("/api/account");
  const trial = useResource<TrialStatus>("/api/trial");
  const error = account.error ?? trial.error;

  return (
    <>
      <PageHeader title="Overview" description={`Welcome back, ${user.name || user.email}.`} />
      {justVerified ? <Notice tone="success">Your email address is confirmed.</Notice> : null}
      {account.data && !account.data.emailVerified ? (
        <Notice tone="warning">Confirm your email address with the link we sent you.</Notice>
      ) : null}
      <Alert message={error ? messageOf(error) : null} />
      <div className="grid">
        <Card title="Free trial">
          {trial.data ? (
            <p data-testid="trial">
              {trial.data.active ? (
                <>
                  <StatusBadge status="active" />{" "}
                  {`${trial.data.daysRemaining} ${trial.data.daysRemaining === 1 ? "day" : "days"} left (ends ${new Date(trial.data.endsAt).toLocaleDateString()})`}
                </>
              ) : (
                "Your free trial has ended."
              )}
            </p>
          ) : (
            <p className="muted" aria-live="polite">
              Loading…
            </p>
          )}
        </Card>
        <Card title="Your agent" footer={<Link href="/dashboard/agent">Open the Agent page →</Link>}>
          <p>Deploy your agent, start or stop it, and read its logs.</p>
        </Card>
        <Card title="Account" footer={<Link href="/dashboard/settings">Open Settings →</Link>}>
          <p>Your email, referral code, passkeys and API keys.</p>
        </Card>
      </div>
    </>
  );
}
