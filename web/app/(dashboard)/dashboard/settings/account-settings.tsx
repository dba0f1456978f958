"use client";

import { useRouter } from "next/navigation";
import { api, type Resource, useResource } from "@/components/data";
import { ActionForm, FormError, useAction } from "@/components/forms";
import { Card, DateTime, Field, Notice } from "@/components/ui";
import { accountFieldOf } from "@/lib/accounts/form-fields";
import type { AccountSummary } from "@/lib/accounts/service";
import { AccountPanels } from "./account-panel";

/**
 * The account's part of Settings (issue 26 item 7): who it is and the referral code, then its name, email
 * and password, each changed in its own card. One read of `/api/account` feeds them all.
 */
export function AccountSettings({ emailChanged }: { emailChanged: boolean }) {
  const account = useResource<AccountSummary>("/api/account");
  return (
    <>
      {emailChanged && account.data ? (
        <Notice tone="success" testId="email-changed">
          Your email address is now <strong>{account.data.email}</strong>; we told the old one.
        </Notice>
      ) : null}
      <div className="grid">
        <AccountPanels account={account} />
      </div>
      {account.data ? (
        <div className="grid">
          <NameCard account={account.data} reload={account.reload} />
          <EmailCard account={account.data} reload={account.reload} />
          <PasswordCard account={account.data} />
        </div>
      ) : null}
    </>
  );
}

interface CardProps {
  account: AccountSummary;
  reload: Resource<AccountSummary>["reload"];
}

function NameCard({ account, reload }: CardProps) {
  const router = useRouter();
  const action = useAction({ fields: (err) => accountFieldOf(err, { name: "Name" }) });

  async function save(data: FormData) {
    await api("/api/account", { method: "PATCH", json: { name: String(data.get("accountName") ?? "") } });
    await reload();
    // The header shows the name: the server layout renders it again.
    router.refresh();
    return "Name saved.";
  }

  return (
    <Card title="Name" testId="name-card" description="How the dashboard greets you.">
      <ActionForm
        action={action}
        label="Change your name"
        onSubmit={save}
        submit="Save name"
        busyLabel="Saving…"
      >
        <Field
          key={account.name}
          label="Name"
          name="accountName"
          autoComplete="name"
          required
          maxLength={100}
          defaultValue={account.name}
          error={action.fieldErrors.name}
        />
      </ActionForm>
    </Card>
  );
}

function EmailCard({ account, reload }: CardProps) {
  const action = useAction({
    fields: (err) => accountFieldOf(err, { email: "New email", password: "Password" }),
  });

  async function change(data: FormData, form: HTMLFormElement) {
    const sent = await api<{ email: string }>("/api/account/email", {
      json: {
        email: String(data.get("newEmail") ?? ""),
        ...(account.hasPassword ? { password: String(data.get("emailPassword") ?? "") } : {}),
      },
    });
    form.reset();
    await reload();
    return `We mailed a link to ${sent.email}. Your email changes when you open it there.`;
  }

  return (
    <Card
      title="Email address"
      testId="email-card"
      description="Sign-in and the platform's mail use it. A new address takes effect once you open the link we mail to it."
    >
      {account.pendingEmail ? (
        <Notice tone="info" testId="pending-email">
          Waiting for you to open the link we mailed to <strong>{account.pendingEmail.email}</strong> (until{" "}
          <DateTime value={account.pendingEmail.expiresAt} />
          ). Until then the account keeps {account.email}.
        </Notice>
      ) : null}
      <ActionForm
        action={action}
        label="Change your email address"
        onSubmit={change}
        submit="Send the confirmation link"
        busyLabel="Sending…"
      >
        <Field
          label="New email"
          name="newEmail"
          type="email"
          autoComplete="email"
          required
          maxLength={254}
          error={action.fieldErrors.email}
        />
        {account.hasPassword ? (
          <Field
            label="Password"
            name="emailPassword"
            type="password"
            autoComplete="current-password"
            required
            hint="Your current password, to confirm it is you."
            error={action.fieldErrors.password}
          />
        ) : null}
      </ActionForm>
    </Card>
  );
}

function PasswordCard({ account }: { account: AccountSummary }) {
  const action = useAction({
    fields: (err) =>
      accountFieldOf(err, {
        currentPassword: "Current password",
        newPassword: "New password",
        confirmPassword: "New password again",
      }),
  });

  async function change(data: FormData, form: HTMLFormElement) {
    const newPassword = String(data.get("newPassword") ?? "");
    if (newPassword !== String(data.get("confirmPassword") ?? ""))
      throw new FormError("The two new passwords are not the same.", "confirmPassword");
    const { sessionsEnded } = await api<{ sessionsEnded: number }>("/api/account/password", {
      json: { currentPassword: String(data.get("currentPassword") ?? ""), newPassword },
    });
    form.reset();
    return `Password changed. ${sessionsEnded === 0 ? "No other session was signed in." : `${sessionsEnded} other ${sessionsEnded === 1 ? "session was" : "sessions were"} signed out.`}`;
  }

  if (!account.hasPassword) {
    return (
      <Card title="Password" testId="password-card">
        <p>
          Your account signs in without a password (a passkey or the identity provider). To set one, use{" "}
          <a href="/forgot-password">Forgot password</a>: we mail you a link.
        </p>
      </Card>
    );
  }
  return (
    <Card title="Password" testId="password-card" description="Changing it signs out your other sessions.">
      <ActionForm
        action={action}
        label="Change your password"
        onSubmit={change}
        submit="Change password"
        busyLabel="Saving…"
      >
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={action.fieldErrors.currentPassword}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters."
          error={action.fieldErrors.newPassword}
        />
        <Field
          label="New password again"
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          required
          error={action.fieldErrors.confirmPassword}
        />
      </ActionForm>
    </Card>
  );
}
