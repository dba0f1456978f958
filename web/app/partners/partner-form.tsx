"use client";

import { type FormEvent, useState } from "react";
import { api, fieldOf, messageOf } from "@/components/data";
import { Alert, Button, Field, Notice, SelectField } from "@/components/ui";
import type { PartnerInquiryResult } from "@/lib/partners/inputs";

const TYPES: [string, string][] = [
  ["general", "General"],
  ["ai_provider", "AI provider"],
  ["integration", "Integration"],
  ["reseller", "Reseller"],
  ["content", "Content"],
  ["infrastructure", "Infrastructure"],
  ["enterprise", "Enterprise"],
];

/** The public partner-inquiry form (`POST /api/partner`). */
export function PartnerForm() {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [result, setResult] = useState<PartnerInquiryResult | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const value = (name: string) => String(data.get(name) ?? "");
    setFieldErrors({});
    setError("");
    setResult(null);
    setBusy(true);
    try {
      const answer = await api<PartnerInquiryResult>("/api/partner", {
        json: {
          name: value("name"),
          email: value("email"),
          message: value("message"),
          type: value("type"),
          ...(value("company").trim() ? { company: value("company") } : {}),
          ...(value("website").trim() ? { website: value("website") } : {}),
        },
      });
      form.reset();
      setResult(answer);
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOf(err, ["name", "email", "message", "company", "website", "type"]);
      if (field) setFieldErrors({ [field]: message });
      else setError(message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      {result ? (
        <Notice tone="success" testId="partner-result">
          <p>{result.message}</p>
          {result.fastTrack ? (
            <p>
              <strong>Fast track</strong>
            </p>
          ) : null}
        </Notice>
      ) : null}
      <form method="post" onSubmit={submit} aria-label="Partner inquiry">
        <Field
          label="Your name"
          name="name"
          required
          maxLength={200}
          autoComplete="name"
          error={fieldErrors.name}
        />
        <Field
          label="Email"
          name="email"
          type="email"
          required
          autoComplete="email"
          error={fieldErrors.email}
        />
        <Field
          label="Company (optional)"
          name="company"
          maxLength={200}
          autoComplete="organization"
          error={fieldErrors.company}
        />
        <Field
          label="Website (optional)"
          name="website"
          maxLength={500}
          autoComplete="url"
          error={fieldErrors.website}
        />
        <SelectField label="Kind of partnership" name="type" defaultValue="general" error={fieldErrors.type}>
          {TYPES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </SelectField>
        <div className="field">
          <label htmlFor="message">Message</label>
          <textarea
            id="message"
            name="message"
            required
            rows={6}
            aria-invalid={fieldErrors.message ? true : undefined}
            aria-describedby={fieldErrors.message ? "message-error" : undefined}
          />
          {fieldErrors.message ? (
            <p id="message-error" className="error" role="alert">
              {fieldErrors.message}
            </p>
          ) : null}
        </div>
        <Button type="submit" busy={busy} busyLabel="Sending…">
          Send inquiry
        </Button>
      </form>
      <Alert message={error} />
    </>
  );
}
