import type { Metadata } from "next";
import { ErrorAlert, Notice } from "@/components/ui";
import { idpSettings } from "@/lib/idp/service";
import { webContext } from "@/lib/infra/context";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "@/lib/infra/http/return-path";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in · Agent Platform" };

const MESSAGES: Record<string, string> = {
  AccessDenied: "You cancelled the sign-in at the identity provider.",
  IdpAuthFailed: "Sign-in with the identity provider failed.",
  IdpNotConfigured: "Sign-in with an identity provider is not set up on this server.",
  IdpTokenFailed: "The identity provider did not complete the sign-in. Try again.",
  IdpNoEmail: "The identity provider did not share an email address with us.",
  IdpAuthError: "Something went wrong signing in with the identity provider.",
  VerificationFailed:
    "That confirmation link is invalid, used or expired. Sign in and send a new one from Settings.",
  EmailChangeFailed:
    "That link to change your email is invalid, used or expired. Ask for a new one in Settings.",
  EmailTaken: "Your email was not changed: another account took that address meanwhile.",
};

/** What the links of the platform's mails and the account pages came here to say (issue 26 item 7). */
const NOTICES: Record<string, string> = {
  verified: "Your email address is confirmed. Sign in to continue.",
  reset: "Your new password is set, and every session was signed out. Sign in with it.",
  emailChanged: "Your email address is changed. Sign in with the new one.",
  deleted: "Your account is deleted. We mailed you a last confirmation.",
};

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  const { config } = webContext();
  const code = typeof params.error === "string" ? params.error : undefined;
  const notice = code ? (MESSAGES[code] ?? "Sign-in failed.") : undefined;
  const done = Object.keys(NOTICES).find((key) => params[key] === "1");
  // The page the visitor asked for before signing in (a path of this site only).
  const next = safeReturnPath(params.next) ?? DEFAULT_RETURN_PATH;
  return (
    <main className="narrow">
      <h1>Sign in</h1>
      <ErrorAlert message={notice} />
      {done ? (
        <Notice tone="success" testId="login-notice">
          {NOTICES[done]}
        </Notice>
      ) : null}
      {next === DEFAULT_RETURN_PATH ? null : (
        <p className="muted">Sign in first: you will then be taken to the page you opened.</p>
      )}
      <LoginForm publicUrl={config.PUBLIC_URL} idpConfigured={idpSettings(config) !== null} next={next} />
      <p>
        <a href="/forgot-password">Forgot your password?</a>
      </p>
      <p>
        New here? <a href="/signup">Create an account</a>
      </p>
    </main>
  );
}
