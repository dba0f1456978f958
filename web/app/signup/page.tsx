import type { Metadata } from "next";
import { SignupForm } from "./signup-form";

export const metadata: Metadata = { title: "Sign up · Agent Platform" };

export default function SignupPage() {
  return (
    <main className="narrow">
      <SignupForm />
    </main>
  );
}
