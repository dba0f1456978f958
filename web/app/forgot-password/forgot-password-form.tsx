"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf } from "@/components/data";
import { ErrorAlert, Field } from "@/components/ui";
import { accountFieldOf } from "@/lib/accounts/form-fields";

/** Asks for a reset link; the answer is the same whether or not an account has the address. */
export function ForgotPasswordForm() {
  const [emailError, setEmailError] = useState("");
  const [formError, setFormError] = useState("");
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setEmailError("");
    setFormError("");
    try {
      await api("/api/auth/forgot-password", { json: { email } });
      setSentTo(email);
    } catch (err) {
      if (accountFieldOf(err, { email: "Email" })) setEmailError(messageOf(err));
      else setFormError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  if (sentTo) {
    return (
      <div role="status" className="notice notice-success" data-testid="reset-sent">
        <p>
          If an account uses <strong>{sentTo}</strong>, a link to choose a new password is on its way. Open it
          within 1 hour; it works once.
        </p>
        <p>No mail? Look in your spam folder, or ask again in a few minutes.</p>
      </div>
    );
  }
  return (
    <form method="post" onSubmit={submit} noValidate aria-label="Ask for a password reset link">
      <Field label="Email" name="email" type="email" autoComplete="email" required error={emailError} />
      <ErrorAlert message={formError} />
      <button type="submit" disabled={busy}>
        {busy ? "Sending…" : "Send the reset link"}
      </button>
    </form>
  );
}
