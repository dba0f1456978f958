import type { Metadata } from "next";
import { SignupForm } from "./signup-form";

export const metadata: Metadata = { title: "Sign up · Agent Platform" };

export default function SignupPage() {
  return (
    <main className="narrow">
      <h1>Create your account</h1>
      <p>Every new account starts a 7-day free trial.</p>
      <SignupForm />
      <p>
        Already have an account? <a href="/login">Sign in</a>
      </p>
    </main>
  );
}
