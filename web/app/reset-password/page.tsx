import type { Metadata } from "next";
import { ResetPasswordForm } from "./reset-password-form";

export const metadata: Metadata = { title: "Choose a new password · Agent Platform" };

/** The page the reset mail links to: `/reset-password?token=…`. */
export default async function ResetPasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const { token } = await searchParams;
  return (
    <main className="narrow">
      <h1>Choose a new password</h1>
      {typeof token === "string" && token ? (
        <>
          <p>Setting it signs out every session of your account, on every device.</p>
          <ResetPasswordForm token={token} />
        </>
      ) : (
        <p className="error" role="alert">
          This page needs the link from the reset mail. <a href="/forgot-password">Ask for a new link</a>.
        </p>
      )}
    </main>
  );
}
