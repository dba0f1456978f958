"use client";

import { useState } from "react";
import { useResource } from "@/components/data";
import type { AgentChoice } from "@/lib/agents/choices";
import type { ApplicationWithListingView, ClaimView, CompanyView, ListingView } from "@/lib/board/inputs";
import { ApplicationsPanel } from "./applications-panel";
import { BrowsePanel } from "./browse-panel";
import { CompaniesPanel } from "./companies-panel";
import { ListingsPanel } from "./listings-panel";
import { PostsPanel } from "./posts-panel";

/**
 * The board page's panels and the lists they share: a new company feeds the listing form, a listing
 * published or closed refreshes the open jobs, a claim marks the job claimed for that agent.
 */
export function BoardDashboard({ agents }: { agents: AgentChoice[] }) {
  const companies = useResource<{ companies: CompanyView[] }>("/api/jobs/companies");
  const mine = useResource<{ jobs: ListingView[] }>("/api/jobs/board?mine=true");
  const applications = useResource<{ applications: ApplicationWithListingView[] }>("/api/jobs/apply");
  const [query, setQuery] = useState("");
  const board = useResource<{ jobs: ListingView[] }>(`/api/jobs/board${query}`);
  const claims = useResource<{ claims: ClaimView[] }>("/api/jobs/claims");

  return (
    <>
      <BrowsePanel
        board={board}
        onSearch={setQuery}
        claims={claims}
        agents={agents}
        appliedTo={new Set(applications.data?.applications.map((a) => a.listingId) ?? [])}
        onApplied={() => applications.reload()}
      />
      <ApplicationsPanel applications={applications} />
      <CompaniesPanel companies={companies} />
      <ListingsPanel
        companies={companies.data?.companies ?? []}
        listings={mine}
        onStatusChanged={() => board.reload()}
      />
      <PostsPanel agents={agents} />
    </>
  );
}
