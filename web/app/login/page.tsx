import type { Metadata } from "next";
import { ErrorAlert } from "@/components/ui";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "@/lib/http/return-path";
import { LoginForm } from "./login-form";

export const metadata: Metadata = { title: "Sign in · Agent Platform" };

const MESSAGES: Record<string, string> = {
  AccessDenied: "You cancelled the sign-in at the identity provider.",
  IdpAuthFailed: "Sign-in with the identity provider failed.",
  IdpNotConfigured: "Sign-in with an identity provider is not set up on this server.",
  IdpTokenFailed: "The identity provider did not complete the sign-in. Try again.",
  IdpNoEmail: "The identity provider did not share an email address with us.",
  IdpAuthError: "Something went wrong signing in with the identity provider.",
  VerificationFailed: "That confirmation link is invalid, used or expired.",
};

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  const code = typeof params.error === "string" ? params.error : undefined;
  const notice = code ? (MESSAGES[code] ?? "Sign-in failed.") : undefined;
  // The page the visitor asked for before signing in (a path of this site only).
  const next = safeReturnPath(params.next) ?? DEFAULT_RETURN_PATH;
  return (
    <main className="narrow">
      <h1>Sign in</h1>
      <ErrorAlert message={notice} />
      {next === DEFAULT_RETURN_PATH ? null : (
        <p className="muted">Sign in first: you will then be taken to the page you opened.</p>
      )}
      <LoginForm next={next} />
      <p>
        New here? <a href="/signup">Create an account</a>
      </p>
    </main>
  );
}
