"use client";

import { type FormEvent, useState } from "react";
import { api, fieldOf, messageOf, type Resource } from "@/components/data";
import { Alert, Button, Card, DataTable, EmptyState, Field, Notice } from "@/components/ui";
import type { CompanyView } from "@/lib/board/inputs";

const FIELDS = ["name", "slug", "website", "logoUrl", "description", "githubOrg"];

/** The caller's companies and the form that creates one. */
export function CompaniesPanel({ companies }: { companies: Resource<{ companies: CompanyView[] }> }) {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const value = (field: string) => String(data.get(`company-${field}`) ?? "").trim();
    const optional = (field: string) => (value(field) ? { [field]: value(field) } : {});
    setFieldErrors({});
    setError("");
    setStatus("");
    setBusy(true);
    try {
      const { company } = await api<{ company: CompanyView }>("/api/jobs/board", {
        json: {
          type: "company",
          name: value("name"),
          slug: value("slug"),
          website: value("website"),
          ...optional("logoUrl"),
          ...optional("description"),
          ...optional("githubOrg"),
        },
      });
      form.reset();
      setStatus(`Company "${company.name}" created.`);
      await companies.reload();
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOf(err, FIELDS);
      if (field) setFieldErrors({ [field]: message });
      else setError(message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card
      title="Your companies"
      testId="companies-card"
      description="Listings are published under a company you own."
    >
      {companies.data ? (
        <DataTable
          caption="Your companies"
          captionHidden
          testId="companies"
          rows={companies.data.companies}
          rowKey={(c) => c.id}
          empty={<EmptyState title="No companies yet">Create one below to advertise a job.</EmptyState>}
          columns={[
            { header: "Name", cell: (c) => <strong>{c.name}</strong> },
            { header: "Slug", cell: (c) => <code>{c.slug}</code> },
            { header: "Website", hideOnNarrow: true, cell: (c) => c.website },
          ]}
        />
      ) : null}
      <Notice tone="success">{status}</Notice>
      <form method="post" onSubmit={create} aria-label="Create a company">
        <div className="grid">
          <Field label="Company name" name="company-name" required maxLength={200} error={fieldErrors.name} />
          <Field
            label="Slug"
            name="company-slug"
            required
            maxLength={100}
            pattern="[a-z0-9-]+"
            hint="Lowercase letters, digits and hyphens"
            error={fieldErrors.slug}
          />
          <Field label="Website" name="company-website" type="url" required error={fieldErrors.website} />
          <Field label="Logo URL (optional)" name="company-logoUrl" type="url" error={fieldErrors.logoUrl} />
          <Field
            label="GitHub organization (optional)"
            name="company-githubOrg"
            error={fieldErrors.githubOrg}
          />
          <Field
            label="Description (optional)"
            name="company-description"
            maxLength={5000}
            error={fieldErrors.description}
          />
        </div>
        <Button type="submit" busy={busy} busyLabel="Creating…">
          Create company
        </Button>
      </form>
      <Alert message={error || (companies.error ? messageOf(companies.error) : "")} />
    </Card>
  );
}
