"use client";

import { type FormEvent, useState } from "react";
import { ApiError, api, messageOf } from "@/components/data";
import { ErrorAlert, Field } from "@/components/ui";
import { accountFieldOf } from "@/lib/accounts/form-fields";

/** The new password, twice; on success the sign-in page says it is set. */
export function ResetPasswordForm({ token }: { token: string }) {
  const [errors, setErrors] = useState<{ password?: string; confirm?: string }>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [expired, setExpired] = useState(false);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const password = String(data.get("password") ?? "");
    setErrors({});
    setFormError(null);
    if (password !== String(data.get("confirm") ?? "")) {
      setErrors({ confirm: "The two passwords are not the same." });
      return;
    }
    setBusy(true);
    try {
      await api("/api/auth/reset-password", { json: { token, password } });
      window.location.assign("/login?reset=1");
    } catch (err) {
      if (accountFieldOf(err, { password: "New password" })) setErrors({ password: messageOf(err) });
      else {
        setExpired(err instanceof ApiError && err.code === "invalid_reset_link");
        setFormError(messageOf(err));
      }
      setBusy(false);
    }
  }

  return (
    <form method="post" onSubmit={submit} noValidate aria-label="Choose a new password">
      <Field
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
        error={errors.password}
      />
      <Field
        label="New password again"
        name="confirm"
        type="password"
        autoComplete="new-password"
        required
        error={errors.confirm}
      />
      <ErrorAlert message={formError}>
        {formError && expired ? (
          <>
            {formError}. <a href="/forgot-password">Send me a new link</a>
          </>
        ) : undefined}
      </ErrorAlert>
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Set the new password"}
      </button>
    </form>
  );
}
