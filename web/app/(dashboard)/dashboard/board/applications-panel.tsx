"use client";

import { messageOf, type Resource } from "@/components/data";
import { Alert, Card, DataTable, DateTime, EmptyState, StatusBadge } from "@/components/ui";
import type { ApplicationWithListingView } from "@/lib/board/inputs";

/** The caller's applications, newest first, with the listing each one went to. */
export function ApplicationsPanel({
  applications,
}: {
  applications: Resource<{ applications: ApplicationWithListingView[] }>;
}) {
  return (
    <Card title="Your applications" testId="applications-card">
      {applications.data ? (
        <DataTable
          caption="Your applications"
          captionHidden
          testId="applications"
          rows={applications.data.applications}
          rowKey={(a) => a.id}
          empty={<EmptyState title="No applications yet">Apply to a listing above.</EmptyState>}
          columns={[
            // A listing moved back to draft is its owner's alone again: the API answers it as null.
            {
              header: "Job",
              cell: (a) =>
                a.listing ? <strong>{a.listing.title}</strong> : <em>Listing no longer published</em>,
            },
            { header: "Company", hideOnNarrow: true, cell: (a) => a.listing?.company.name ?? "—" },
            {
              header: "Status",
              cell: (a) => <StatusBadge status={a.listing?.status ?? "unpublished"} />,
            },
            { header: "Applied", hideOnNarrow: true, cell: (a) => <DateTime value={a.createdAt} /> },
          ]}
        />
      ) : null}
      <Alert message={applications.error ? messageOf(applications.error) : ""} />
    </Card>
  );
}
