"use client";

import { type FormEvent, useState } from "react";
import { api, fieldOf, messageOf, type Resource } from "@/components/data";
import {
  Alert,
  Button,
  Card,
  DataTable,
  DateTime,
  EmptyState,
  Field,
  Notice,
  SelectField,
  StatusBadge,
} from "@/components/ui";
import type { ClaimView, CompanyView, ListingStatus, ListingView } from "@/lib/board/inputs";

const FIELDS = [
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
];

/**
 * The caller's listings of every status (publish, close, read claims by agent name) and the create form; a
 * change of status refreshes the open jobs too (`onStatusChanged`).
 */
export function ListingsPanel({
  companies,
  listings,
  onStatusChanged,
}: {
  companies: CompanyView[];
  listings: Resource<{ jobs: ListingView[] }>;
  onStatusChanged: () => Promise<void>;
}) {
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const [claims, setClaims] = useState<{ listing: ListingView; claims: ClaimView[] } | null>(null);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const value = (field: string) => String(data.get(`listing-${field}`) ?? "").trim();
    setFieldErrors({});
    setError("");
    setStatus("");
    setBusy(true);
    try {
      const techStack = value("techStack")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean);
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
          techStack,
        },
      });
      form.reset();
      setStatus(`Draft "${job.title}" created. Publish it to show it on the board.`);
      await listings.reload();
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOf(err, FIELDS);
      if (field) setFieldErrors({ [field]: message });
      else setError(message);
    } finally {
      setBusy(false);
    }
  }

  async function move(listing: ListingView, next: ListingStatus) {
    setError("");
    setStatus("");
    try {
      await api(`/api/jobs/board/${encodeURIComponent(listing.id)}`, {
        method: "PATCH",
        json: { status: next },
      });
      setStatus(`"${listing.title}" is now ${next}.`);
      await Promise.all([listings.reload(), onStatusChanged()]);
    } catch (err) {
      setError(messageOf(err));
    }
  }

  async function showClaims(listing: ListingView) {
    setError("");
    try {
      const result = await api<{ claims: ClaimView[] }>(`/api/jobs/${encodeURIComponent(listing.id)}/claims`);
      setClaims({ listing, claims: result.claims });
    } catch (err) {
      setError(messageOf(err));
    }
  }

  return (
    <Card
      title="Your listings"
      testId="listings-card"
      description="New listings start as drafts, which only you can see, until you publish them."
    >
      {listings.data ? (
        <DataTable
          caption="Your listings"
          captionHidden
          testId="my-listings"
          rows={listings.data.jobs}
          rowKey={(j) => j.id}
          empty={<EmptyState title="No listings yet">Create one with the form below.</EmptyState>}
          columns={[
            { header: "Title", cell: (j) => <strong>{j.title}</strong> },
            { header: "Company", hideOnNarrow: true, cell: (j) => j.company.name },
            { header: "Status", cell: (j) => <StatusBadge status={j.status} /> },
            { header: "Views", align: "end", hideOnNarrow: true, cell: (j) => j.viewCount },
            { header: "Applications", align: "end", hideOnNarrow: true, cell: (j) => j.applyCount },
            {
              header: "Actions",
              align: "end",
              cell: (j) => (
                <span className="actions">
                  {j.status !== "active" ? (
                    <Button size="sm" aria-label={`Publish ${j.title}`} onClick={() => move(j, "active")}>
                      Publish
                    </Button>
                  ) : (
                    <Button
                      size="sm"
                      variant="secondary"
                      aria-label={`Close ${j.title}`}
                      onClick={() => move(j, "closed")}
                    >
                      Close
                    </Button>
                  )}
                  <Button
                    size="sm"
                    variant="ghost"
                    aria-label={`Claims of ${j.title}`}
                    onClick={() => showClaims(j)}
                  >
                    Claims
                  </Button>
                </span>
              ),
            },
          ]}
        />
      ) : null}
      {claims ? (
        <DataTable
          caption={`Agent claims of "${claims.listing.title}"`}
          testId="claims"
          rows={claims.claims}
          rowKey={(c) => c.id}
          empty={<EmptyState title={`No agent has claimed "${claims.listing.title}" yet`} />}
          columns={[
            {
              header: "Agent",
              // A claimer who deleted their account: the claim stays, as a deleted user's.
              cell: (c) =>
                c.userId === null ? (
                  <span className="muted">deleted user</span>
                ) : c.claimerAgentName ? (
                  <strong>{c.claimerAgentName}</strong>
                ) : (
                  <em>a deleted agent</em>
                ),
            },
            { header: "Claimed", cell: (c) => <DateTime value={c.createdAt} /> },
          ]}
        />
      ) : null}
      <Notice tone="success">{status}</Notice>
      {companies.length === 0 ? (
        <p className="muted">Create a company first to advertise a job.</p>
      ) : (
        <form method="post" onSubmit={create} aria-label="Create a listing">
          <div className="grid">
            <SelectField label="Company" name="listing-companyId" required error={fieldErrors.companyId}>
              {companies.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </SelectField>
            <Field label="Title" name="listing-title" required maxLength={200} error={fieldErrors.title} />
            <Field label="Description" name="listing-description" required error={fieldErrors.description} />
            <Field
              label="Role type"
              name="listing-roleType"
              required
              placeholder="backend"
              error={fieldErrors.roleType}
            />
            <Field
              label="Seniority"
              name="listing-seniority"
              required
              placeholder="senior"
              error={fieldErrors.seniority}
            />
            <Field
              label="Contract type"
              name="listing-contractType"
              required
              placeholder="full-time"
              error={fieldErrors.contractType}
            />
            <Field
              label="Minimum salary"
              name="listing-salaryMin"
              type="number"
              min={1}
              required
              error={fieldErrors.salaryMin}
            />
            <Field
              label="Maximum salary"
              name="listing-salaryMax"
              type="number"
              min={1}
              required
              error={fieldErrors.salaryMax}
            />
            <Field
              label="Currency"
              name="listing-salaryCurrency"
              defaultValue="USD"
              maxLength={3}
              error={fieldErrors.salaryCurrency}
            />
            <SelectField
              label="Web type"
              name="listing-webType"
              defaultValue="both"
              error={fieldErrors.webType}
            >
              <option value="both">Web2 and web3</option>
              <option value="web2">Web2</option>
              <option value="web3">Web3</option>
            </SelectField>
            <Field
              label="Apply URL"
              name="listing-applyUrl"
              type="url"
              required
              error={fieldErrors.applyUrl}
            />
            <Field
              label="Tech stack (optional)"
              name="listing-techStack"
              hint="Comma separated, e.g. typescript, postgres"
              error={fieldErrors.techStack}
            />
          </div>
          <Button type="submit" busy={busy} busyLabel="Creating…">
            Create draft
          </Button>
        </form>
      )}
      <Alert message={error || (listings.error ? messageOf(listings.error) : "")} />
    </Card>
  );
}
