"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { api, messageOf, type Resource, useResource } from "@/components/data";
import { Alert, Button, Card, DateTime, Field, Notice } from "@/components/ui";
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

/** A form's state: its field errors, its form-level error, its success line and whether it is sending. */
function useFormState<F extends string>() {
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<F, string>>>({});
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  const [busy, setBusy] = useState(false);
  return {
    fieldErrors,
    error,
    done,
    busy,
    start() {
      setFieldErrors({});
      setError("");
      setDone("");
      setBusy(true);
    },
    fail(err: unknown, labels: Record<F, string>) {
      const field = accountFieldOf(err, labels);
      if (field) setFieldErrors({ [field]: messageOf(err) } as Partial<Record<F, string>>);
      else setError(messageOf(err));
      setBusy(false);
    },
    fieldError(field: F, message: string) {
      setFieldErrors({ [field]: message } as Partial<Record<F, string>>);
      setBusy(false);
    },
    succeed(message: string) {
      setDone(message);
      setBusy(false);
    },
  };
}

function NameCard({ account, reload }: CardProps) {
  const router = useRouter();
  const form = useFormState<"name">();

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get("accountName") ?? "");
    form.start();
    try {
      await api("/api/account", { method: "PATCH", json: { name } });
      await reload();
      // The header shows the name: the server layout renders it again.
      router.refresh();
      form.succeed("Name saved.");
    } catch (err) {
      form.fail(err, { name: "Name" });
    }
  }

  return (
    <Card title="Name" testId="name-card" description="How the dashboard greets you.">
      <form method="post" onSubmit={save} aria-label="Change your name">
        <Field
          key={account.name}
          label="Name"
          name="accountName"
          autoComplete="name"
          required
          maxLength={100}
          defaultValue={account.name}
          error={form.fieldErrors.name}
        />
        <Button type="submit" busy={form.busy} busyLabel="Saving…">
          Save name
        </Button>
      </form>
      <Notice tone="success">{form.done}</Notice>
      <Alert message={form.error} />
    </Card>
  );
}

function EmailCard({ account, reload }: CardProps) {
  const form = useFormState<"email" | "password">();

  async function change(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const data = new FormData(element);
    form.start();
    try {
      const sent = await api<{ email: string }>("/api/account/email", {
        json: {
          email: String(data.get("newEmail") ?? ""),
          ...(account.hasPassword ? { password: String(data.get("emailPassword") ?? "") } : {}),
        },
      });
      element.reset();
      await reload();
      form.succeed(`We mailed a link to ${sent.email}. Your email changes when you open it there.`);
    } catch (err) {
      form.fail(err, { email: "New email", password: "Password" });
    }
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
      <form method="post" onSubmit={change} aria-label="Change your email address">
        <Field
          label="New email"
          name="newEmail"
          type="email"
          autoComplete="email"
          required
          maxLength={254}
          error={form.fieldErrors.email}
        />
        {account.hasPassword ? (
          <Field
            label="Password"
            name="emailPassword"
            type="password"
            autoComplete="current-password"
            required
            hint="Your current password, to confirm it is you."
            error={form.fieldErrors.password}
          />
        ) : null}
        <Button type="submit" busy={form.busy} busyLabel="Sending…">
          Send the confirmation link
        </Button>
      </form>
      <Notice tone="success">{form.done}</Notice>
      <Alert message={form.error} />
    </Card>
  );
}

function PasswordCard({ account }: { account: AccountSummary }) {
  const form = useFormState<"currentPassword" | "newPassword" | "confirmPassword">();

  async function change(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const data = new FormData(element);
    const newPassword = String(data.get("newPassword") ?? "");
    form.start();
    if (newPassword !== String(data.get("confirmPassword") ?? "")) {
      form.fieldError("confirmPassword", "The two new passwords are not the same.");
      return;
    }
    try {
      const { sessionsEnded } = await api<{ sessionsEnded: number }>("/api/account/password", {
        json: { currentPassword: String(data.get("currentPassword") ?? ""), newPassword },
      });
      element.reset();
      form.succeed(
        `Password changed. ${sessionsEnded === 0 ? "No other session was signed in." : `${sessionsEnded} other ${sessionsEnded === 1 ? "session was" : "sessions were"} signed out.`}`,
      );
    } catch (err) {
      form.fail(err, {
        currentPassword: "Current password",
        newPassword: "New password",
        confirmPassword: "New password again",
      });
    }
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
      <form method="post" onSubmit={change} aria-label="Change your password">
        <Field
          label="Current password"
          name="currentPassword"
          type="password"
          autoComplete="current-password"
          required
          error={form.fieldErrors.currentPassword}
        />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters."
          error={form.fieldErrors.newPassword}
        />
        <Field
          label="New password again"
          name="confirmPassword"
          type="password"
          autoComplete="new-password"
          required
          error={form.fieldErrors.confirmPassword}
        />
        <Button type="submit" busy={form.busy} busyLabel="Saving…">
          Change password
        </Button>
      </form>
      <Notice tone="success">{form.done}</Notice>
      <Alert message={form.error} />
    </Card>
  );
}
