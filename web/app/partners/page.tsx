import type { Metadata } from "next";
import { PartnerForm } from "./partner-form";

export const metadata: Metadata = { title: "Partner with us · Agent Platform" };

export default function PartnersPage() {
  return (
    <main className="narrow">
      <h1>Partner with us</h1>
      <p>
        AI providers, integrations, resellers, content and infrastructure partners, and enterprises: tell us
        about yourself and we will get back to you. Enterprise and AI-provider inquiries with a company name
        go on the fast track.
      </p>
      <PartnerForm />
      <p>
        <a href="/">Back to the home page</a>
      </p>
    </main>
  );
}
