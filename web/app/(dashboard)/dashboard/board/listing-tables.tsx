"use client";

import { Button, DataTable, DateTime, EmptyState, StatusBadge } from "@/components/ui";
import type { ClaimView, ListingStatus, ListingView } from "@/lib/board/inputs";

/** The caller's listings with their counts; a draft or closed one is published, an active one closed. */
export function ListingsTable({
  listings,
  onMove,
  onShowClaims,
}: {
  listings: ListingView[];
  onMove: (listing: ListingView, next: ListingStatus) => unknown;
  onShowClaims: (listing: ListingView) => unknown;
}) {
  return (
    <DataTable
      caption="Your listings"
      captionHidden
      testId="my-listings"
      rows={listings}
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
                <Button size="sm" aria-label={`Publish ${j.title}`} onClick={() => onMove(j, "active")}>
                  Publish
                </Button>
              ) : (
                <Button
                  size="sm"
                  variant="secondary"
                  aria-label={`Close ${j.title}`}
                  onClick={() => onMove(j, "closed")}
                >
                  Close
                </Button>
              )}
              <Button
                size="sm"
                variant="ghost"
                aria-label={`Claims of ${j.title}`}
                onClick={() => onShowClaims(j)}
              >
                Claims
              </Button>
            </span>
          ),
        },
      ]}
    />
  );
}

/** The agents' claims of one listing, by agent name. */
export function ClaimsTable({ listing, claims }: { listing: ListingView; claims: ClaimView[] }) {
  return (
    <DataTable
      caption={`Agent claims of "${listing.title}"`}
      testId="claims"
      rows={claims}
      rowKey={(c) => c.id}
      empty={<EmptyState title={`No agent has claimed "${listing.title}" yet`} />}
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
  );
}
