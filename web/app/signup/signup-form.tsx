"use client";

import { type FormEvent, useState } from "react";
import { ApiError, api, fieldOf, messageOf } from "@/components/data";
import { ErrorAlert, Field } from "@/components/ui";

const FIELDS = ["email", "password", "name", "referralCode"];
/** The field an error is about, by its code, when its message does not name it. */
const FIELD_OF_CODE: Record<string, string | undefined> = {
  user_exists: "email",
  invalid_referral_code: "referralCode",
};

export function SignupForm() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const body: Record<string, string> = {};
    for (const field of FIELDS) {
      const value = String(data.get(field) ?? "").trim();
      if (value || field === "email" || field === "password")
        body[field] = field === "password" ? String(data.get(field) ?? "") : value;
    }
    setBusy(true);
    setErrors({});
    setFormError("");
    try {
      const account = await api<{ email: string }>("/api/register", { json: body });
      setDone(account.email);
    } catch (err) {
      const message = messageOf(err);
      const field = err instanceof ApiError ? FIELD_OF_CODE[err.code] : undefined;
      const named = field ?? fieldOf(message, FIELDS);
      if (named) setErrors({ [named]: message });
      else setFormError(message);
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <div role="status" className="notice">
        <p>
          Account created for <strong>{done}</strong>. We sent a link to confirm your email address.
        </p>
        <p>
          <a href="/login">Sign in now</a>
        </p>
      </div>
    );
  }
  return (
    <form method="post" onSubmit={submit} noValidate>
      <Field label="Email" name="email" type="email" autoComplete="email" required error={errors.email} />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
        error={errors.password}
      />
      <Field label="Name (optional)" name="name" autoComplete="name" error={errors.name} />
      <Field label="Referral code (optional)" name="referralCode" error={errors.referralCode} />
      <ErrorAlert message={formError} />
      <button type="submit" disabled={busy}>
        {busy ? "Creating account…" : "Create account"}
      </button>
    </form>
  );
}
