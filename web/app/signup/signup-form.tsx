"use client";

import { type FormEvent, useEffect, useRef, useState } from "react";
import { api, fieldOf, messageOf } from "@/components/data";
import { Button, ErrorAlert, Field } from "@/components/ui";

const FIELDS = ["email", "password", "name", "referralCode"];

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
      const field = fieldOf(err, FIELDS);
      if (field) setErrors({ [field]: message });
      else setFormError(message);
    } finally {
      setBusy(false);
    }
  }

  if (done) return <NextStep email={done} />;
  return (
    <>
      <h1>Create your account</h1>
      <p>Every new account starts a 7-day free trial.</p>
      <SignupFields errors={errors} formError={formError} busy={busy} onSubmit={submit} />
      <p>
        Already have an account? <a href="/login">Sign in</a>
      </p>
    </>
  );
}

/** After sign-up, the page holds only what to do next (the form and its invitations are gone). */
function NextStep({ email }: { email: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The page changed under the button just pressed: reading starts again at its heading.
  useEffect(() => heading.current?.focus(), []);
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Check your email
      </h1>
      <div role="status" className="notice notice-success" data-testid="signup-next-step">
        <p>
          Account created for <strong>{email}</strong>. Open the link we sent to that address to confirm it,
          then sign in.
        </p>
      </div>
      <p>
        <a className="button" href="/login">
          Sign in
        </a>
      </p>
    </>
  );
}

function SignupFields({
  errors,
  formError,
  busy,
  onSubmit,
}: {
  errors: Record<string, string>;
  formError: string;
  busy: boolean;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
}) {
  return (
    <form method="post" onSubmit={onSubmit} noValidate>
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
      <Field label="Name (optional)" name="name" autoComplete="name" maxLength={100} error={errors.name} />
      <Field label="Referral code (optional)" name="referralCode" error={errors.referralCode} />
      <ErrorAlert message={formError} />
      <Button type="submit" busy={busy} busyLabel="Creating account…">
        Create account
      </Button>
    </form>
  );
}
