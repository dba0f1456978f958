"use client";

import { api, type Resource } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, DataTable, EmptyState, Field } from "@/components/ui";
import type { CompanyView } from "@/lib/board/inputs";

const FIELDS = ["name", "slug", "website", "logoUrl", "description", "githubOrg"] as const;

/** The caller's companies and the form that creates one. */
export function CompaniesPanel({ companies }: { companies: Resource<{ companies: CompanyView[] }> }) {
  const action = useAction({ fields: FIELDS });
  const errors = action.fieldErrors;

  async function create(data: FormData, form: HTMLFormElement) {
    const value = (field: string) => String(data.get(`company-${field}`) ?? "").trim();
    const optional = (field: string) => (value(field) ? { [field]: value(field) } : {});
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
    await companies.reload();
    return `Company "${company.name}" created.`;
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
      <ActionForm
        action={action}
        label="Create a company"
        onSubmit={create}
        submit="Create company"
        busyLabel="Creating…"
        loadError={companies.error}
      >
        <div className="grid">
          <Field label="Company name" name="company-name" required maxLength={200} error={errors.name} />
          <Field
            label="Slug"
            name="company-slug"
            required
            maxLength={100}
            pattern="[a-z0-9-]+"
            hint="Lowercase letters, digits and hyphens"
            error={errors.slug}
          />
          <Field label="Website" name="company-website" type="url" required error={errors.website} />
          <Field label="Logo URL (optional)" name="company-logoUrl" type="url" error={errors.logoUrl} />
          <Field label="GitHub organization (optional)" name="company-githubOrg" error={errors.githubOrg} />
          <Field
            label="Description (optional)"
            name="company-description"
            maxLength={5000}
            error={errors.description}
          />
        </div>
      </ActionForm>
    </Card>
  );
}
