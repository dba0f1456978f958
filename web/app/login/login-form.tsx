"use client";

import { startAuthentication } from "@simplewebauthn/browser";
import { type FormEvent, useRef, useState } from "react";
import { ApiError, api, fieldOf, messageOf } from "@/components/data";
import { Button, ErrorAlert, Field } from "@/components/ui";
import { passkeyErrorHere } from "@/lib/passkeys/browser-errors";

/**
 * Password and passkey sign-in, then goes to `next` (a path of this site, checked by the page); the
 * identity provider's button only when one is configured. `publicUrl` (PUBLIC_URL) lets a passkey failure
 * name the address passkeys work at.
 */
export function LoginForm({
  publicUrl,
  idpConfigured,
  next = "/dashboard",
}: {
  publicUrl: string;
  idpConfigured: boolean;
  next?: string;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState("");
  const [busy, setBusy] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);

  async function signInWithPassword(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setErrors({});
    setFormError("");
    try {
      const csrf = await api<{ header: string }>("/api/auth/csrf");
      await api("/api/auth/login", {
        json: { email: String(data.get("email") ?? ""), password: String(data.get("password") ?? "") },
        headers: { "x-csrf-token": csrf.header },
      });
      window.location.assign(next);
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOf(err, ["email", "password"]);
      if (field) setErrors({ [field]: message });
      else setFormError(message);
      setBusy(false);
    }
  }

  async function signInWithPasskey() {
    setErrors({});
    setFormError("");
    const identifier = emailRef.current?.value.trim() ?? "";
    if (!identifier) {
      setErrors({ email: "Enter your email to sign in with a passkey." });
      emailRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const { options, challenge } = await api<{
        options: Parameters<typeof startAuthentication>[0]["optionsJSON"];
        challenge: string;
      }>("/api/passkey/auth/options", { json: { identifier } });
      const response = await startAuthentication({ optionsJSON: options });
      await api("/api/passkey/auth/verify", { json: { response, challenge } });
      window.location.assign(next);
    } catch (err) {
      setFormError(err instanceof ApiError ? messageOf(err) : passkeyErrorHere(err, "sign-in", publicUrl));
      setBusy(false);
    }
  }

  return (
    <>
      <form
        method="post"
        onSubmit={signInWithPassword}
        noValidate
        aria-label="Sign in with email and password"
      >
        <Field
          ref={emailRef}
          label="Email"
          name="email"
          type="email"
          autoComplete="username webauthn"
          required
          error={errors.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          error={errors.password}
        />
        <ErrorAlert message={formError} />
        <Button type="submit" busy={busy}>
          Sign in
        </Button>
      </form>
      <div className="alternatives">
        <Button variant="secondary" onClick={signInWithPasskey} disabled={busy}>
          Sign in with passkey
        </Button>
        {idpConfigured ? (
          <a
            className="button secondary"
            href={next === "/dashboard" ? "/api/auth/idp" : `/api/auth/idp?next=${encodeURIComponent(next)}`}
          >
            Continue with identity provider
          </a>
        ) : null}
      </div>
    </>
  );
}
