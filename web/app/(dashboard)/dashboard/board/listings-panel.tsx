"use client";

import { useState } from "react";
import { api, type Resource } from "@/components/data";
import { useAction } from "@/components/forms";
import { Card } from "@/components/ui";
import type { ClaimView, CompanyView, ListingStatus, ListingView } from "@/lib/board/inputs";
import { LISTING_FIELDS, ListingForm } from "./listing-form";
import { ClaimsTable, ListingsTable } from "./listing-tables";

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
  const action = useAction({ fields: LISTING_FIELDS });
  const [claims, setClaims] = useState<{ listing: ListingView; claims: ClaimView[] } | null>(null);

  const move = (listing: ListingView, next: ListingStatus) =>
    action.run(async () => {
      await api(`/api/jobs/board/${encodeURIComponent(listing.id)}`, {
        method: "PATCH",
        json: { status: next },
      });
      await Promise.all([listings.reload(), onStatusChanged()]);
      return `"${listing.title}" is now ${next}.`;
    }, listing.id);

  const showClaims = (listing: ListingView) =>
    action.run(async () => {
      const result = await api<{ claims: ClaimView[] }>(`/api/jobs/${encodeURIComponent(listing.id)}/claims`);
      setClaims({ listing, claims: result.claims });
    }, listing.id);

  return (
    <Card
      title="Your listings"
      testId="listings-card"
      description="New listings start as drafts, which only you can see, until you publish them."
    >
      {listings.data ? (
        <ListingsTable listings={listings.data.jobs} onMove={move} onShowClaims={showClaims} />
      ) : null}
      {claims ? <ClaimsTable listing={claims.listing} claims={claims.claims} /> : null}
      <ListingForm
        companies={companies}
        action={action}
        loadError={listings.error}
        onCreated={() => listings.reload()}
      />
    </Card>
  );
}
