"use client";

import { api, messageOf, type Resource } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Alert, Button, Card, StatusBadge } from "@/components/ui";
import type { AccountSummary } from "@/lib/accounts/service";

/** The account (name, email and whether it is confirmed) and the referral code with the credits earned. */
export function AccountPanels({ account }: { account: Resource<AccountSummary> }) {
  const a = account.data;
  return (
    <>
      <Card title="Account" testId="account-card">
        {a ? (
          <dl className="facts">
            <div>
              <dt>Name</dt>
              <dd>{a.name || "—"}</dd>
            </div>
            <div>
              <dt>Email</dt>
              <dd data-testid="account-email">
                {a.email}{" "}
                {a.emailVerified ? (
                  <StatusBadge status="ok" tone="ok">
                    confirmed
                  </StatusBadge>
                ) : (
                  <StatusBadge status="pending" tone="warn">
                    not confirmed
                  </StatusBadge>
                )}
              </dd>
            </div>
            {a.isAdmin ? (
              <div>
                <dt>Role</dt>
                <dd>Administrator</dd>
              </div>
            ) : null}
          </dl>
        ) : account.error ? (
          <Alert message={messageOf(account.error)} />
        ) : (
          <p className="muted">Loading…</p>
        )}
        {a && !a.emailVerified ? <ConfirmEmail /> : null}
      </Card>
      <Card title="Referral" testId="referral-card">
        {a ? (
          <>
            <p>Share your code: you and the person who signs up with it both get credits.</p>
            <dl className="facts">
              <div>
                <dt>Your code</dt>
                <dd>
                  <code className="secret" data-testid="referral-code">
                    {a.referralCode}
                  </code>
                </dd>
              </div>
              <div>
                <dt>Credits earned</dt>
                <dd data-testid="referral-credits">{a.referralCredits}</dd>
              </div>
            </dl>
          </>
        ) : account.error ? (
          <p className="muted">Not available: the account could not be read.</p>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </Card>
    </>
  );
}

/** Why the email matters and a way to get a fresh link (the first one lasts 24 hours). */
function ConfirmEmail() {
  const action = useAction();
  const resend = () =>
    action.run(async () => {
      const { email } = await api<{ email: string }>("/api/auth/verify-email", { method: "POST" });
      return `A new link is on its way to ${email}; links sent before no longer work.`;
    });

  return (
    <>
      <p className="hint">
        Confirm your email address with the link we sent you when you signed up: deploying an agent and
        chatting with it need it.
      </p>
      <Button
        variant="secondary"
        size="sm"
        busy={action.busy}
        busyLabel="Sending…"
        onClick={() => void resend()}
      >
        Send the link again
      </Button>
      <ActionStatus action={action} />
    </>
  );
}
