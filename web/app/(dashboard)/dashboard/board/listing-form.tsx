"use client";

import { api } from "@/components/data";
import { type Action, ActionForm } from "@/components/forms";
import { Field, SelectField } from "@/components/ui";
import type { CompanyView, ListingView } from "@/lib/board/inputs";

/** The create form's fields, as the API names them (each input is `listing-<field>`). */
export const LISTING_FIELDS = [
  "companyId",
  "title",
  "description",
  "salaryMin",
  "salaryMax",
  "salaryCurrency",
  "roleType",
  "seniority",
  "contractType",
  "webType",
  "applyUrl",
  "techStack",
] as const;
type ListingField = (typeof LISTING_FIELDS)[number];

/** A new listing, created as a draft under one of the caller's companies (none yet: says to make one). */
export function ListingForm({
  companies,
  action,
  loadError,
  onCreated,
}: {
  companies: CompanyView[];
  action: Action<ListingField>;
  /** The listings could not be read: said on the form's error line. */
  loadError: unknown;
  onCreated: () => Promise<void>;
}) {
  async function create(data: FormData, form: HTMLFormElement) {
    const value = (field: ListingField) => String(data.get(`listing-${field}`) ?? "").trim();
    const { job } = await api<{ job: ListingView }>("/api/jobs/board", {
      json: {
        companyId: value("companyId"),
        title: value("title"),
        description: value("description"),
        salaryMin: Number(value("salaryMin")),
        salaryMax: Number(value("salaryMax")),
        salaryCurrency: value("salaryCurrency") || "USD",
        roleType: value("roleType"),
        seniority: value("seniority"),
        contractType: value("contractType"),
        webType: value("webType"),
        applyUrl: value("applyUrl"),
        techStack: value("techStack")
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      },
    });
    form.reset();
    await onCreated();
    return `Draft "${job.title}" created. Publish it to show it on the board.`;
  }

  const errors = action.fieldErrors;
  return (
    <ActionForm
      action={action}
      label="Create a listing"
      onSubmit={create}
      submit="Create draft"
      busyLabel="Creating…"
      loadError={loadError}
      replacedBy={
        companies.length === 0 ? (
          <p className="muted">Create a company first to advertise a job.</p>
        ) : undefined
      }
    >
      <div className="grid">
        <SelectField label="Company" name="listing-companyId" required error={errors.companyId}>
          {companies.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </SelectField>
        <Field label="Title" name="listing-title" required maxLength={200} error={errors.title} />
        <Field label="Description" name="listing-description" required error={errors.description} />
        <Field
          label="Role type"
          name="listing-roleType"
          required
          placeholder="backend"
          error={errors.roleType}
        />
        <Field
          label="Seniority"
          name="listing-seniority"
          required
          placeholder="senior"
          error={errors.seniority}
        />
        <Field
          label="Contract type"
          name="listing-contractType"
          required
          placeholder="full-time"
          error={errors.contractType}
        />
        <Field
          label="Minimum salary"
          name="listing-salaryMin"
          type="number"
          min={1}
          required
          error={errors.salaryMin}
        />
        <Field
          label="Maximum salary"
          name="listing-salaryMax"
          type="number"
          min={1}
          required
          error={errors.salaryMax}
        />
        <Field
          label="Currency"
          name="listing-salaryCurrency"
          defaultValue="USD"
          maxLength={3}
          error={errors.salaryCurrency}
        />
        <SelectField label="Web type" name="listing-webType" defaultValue="both" error={errors.webType}>
          <option value="both">Web2 and web3</option>
          <option value="web2">Web2</option>
          <option value="web3">Web3</option>
        </SelectField>
        <Field label="Apply URL" name="listing-applyUrl" type="url" required error={errors.applyUrl} />
        <Field
          label="Tech stack (optional)"
          name="listing-techStack"
          hint="Comma separated, e.g. typescript, postgres"
          error={errors.techStack}
        />
      </div>
    </ActionForm>
  );
}
