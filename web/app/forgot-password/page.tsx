import type { Metadata } from "next";
import { ForgotPasswordForm } from "./forgot-password-form";

export const metadata: Metadata = { title: "Forgot password · Agent Platform" };

export default function ForgotPasswordPage() {
  return (
    <main className="narrow">
      <h1>Forgot your password?</h1>
      <p>
        Enter the email of your account. We mail you a link to choose a new password; it works once, for 1
        hour.
      </p>
      <ForgotPasswordForm />
      <p>
        Remembered it? <a href="/login">Sign in</a>
      </p>
    </main>
  );
}
