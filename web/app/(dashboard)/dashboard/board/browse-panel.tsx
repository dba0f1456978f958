"use client";

import { type FormEvent, useState } from "react";
import { api, type Resource } from "@/components/data";
import { ActionStatus, FormError, useAction } from "@/components/forms";
import { Button, Card, DataTable, EmptyState, Field, SelectField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { ClaimView, ListingView } from "@/lib/board/inputs";

/**
 * The public board (active listings, filters and search): apply, or let one of your agents claim a job. A
 * job the chosen agent has claimed reads "Claimed" and cannot be claimed by it again.
 */
export function BrowsePanel({
  board,
  onSearch,
  claims,
  agents,
  appliedTo,
  onApplied,
}: {
  board: Resource<{ jobs: ListingView[] }>;
  /** A new query string (`?search=…`, or empty for every open job). */
  onSearch: (query: string) => void;
  claims: Resource<{ claims: ClaimView[] }>;
  agents: AgentChoice[];
  appliedTo: Set<string>;
  onApplied: () => Promise<void>;
}) {
  // The newest of the caller's agents claims unless another is chosen.
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const action = useAction();
  const agentName = agents.find((a) => a.id === agentId)?.name ?? "Your agent";
  const claimed = new Set(
    claims.data?.claims.filter((c) => c.claimerAgentId === agentId).map((c) => c.jobId) ?? [],
  );

  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const params = new URLSearchParams();
    for (const name of ["search", "roleType", "seniority", "webType"]) {
      const value = String(data.get(`browse-${name}`) ?? "").trim();
      if (value) params.set(name, value);
    }
    const text = params.toString();
    onSearch(text ? `?${text}` : "");
  }

  const apply = (listing: ListingView) =>
    action.run(async () => {
      await api("/api/jobs/apply", { json: { listingId: listing.id } });
      await onApplied();
      return `Applied to "${listing.title}".`;
    }, `apply-${listing.id}`);

  async function claim(listing: ListingView) {
    await action.run(async () => {
      if (!agentId) throw new FormError("Deploy an agent first (Agent page): an agent claims a job.");
      await api(`/api/jobs/${encodeURIComponent(listing.id)}/claim`, {
        json: { claimerAgentId: agentId },
      });
      return `${agentName} claimed "${listing.title}".`;
    }, `claim-${listing.id}`);
    await claims.reload();
  }

  return (
    <Card title="Open jobs" testId="browse-card" description="Active listings, newest first (at most 50).">
      <form method="post" onSubmit={search} aria-label="Search jobs">
        <div className="grid">
          <Field label="Search title and description" name="browse-search" type="search" maxLength={200} />
          <Field label="Role type" name="browse-roleType" placeholder="backend" maxLength={50} />
          <Field label="Seniority" name="browse-seniority" placeholder="senior" maxLength={50} />
          <SelectField label="Web type" name="browse-webType" defaultValue="">
            <option value="">Any</option>
            <option value="web2">Web2</option>
            <option value="web3">Web3</option>
            <option value="both">Both</option>
          </SelectField>
        </div>
        <Button type="submit" variant="secondary">
          Search
        </Button>
      </form>
      {agents.length > 0 ? (
        <SelectField
          label="Agent that claims jobs"
          name="claim-agentId"
          value={agentId}
          onChange={(event) => setAgentId(event.target.value)}
        >
          {agents.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </SelectField>
      ) : (
        <p className="hint">You have no agent yet: deploy one on the Agent page to claim jobs.</p>
      )}
      {board.data ? (
        <DataTable
          caption="Open jobs"
          captionHidden
          testId="board"
          rows={board.data.jobs}
          rowKey={(j) => j.id}
          empty={<EmptyState title="No open jobs match">Try other filters.</EmptyState>}
          columns={[
            {
              header: "Job",
              cell: (j) => (
                <>
                  <strong>{j.title}</strong>
                  <br />
                  <span className="muted">
                    {j.roleType} · {j.seniority} · {j.contractType} · {j.webType}
                  </span>
                </>
              ),
            },
            { header: "Company", cell: (j) => j.company.name },
            {
              header: "Salary",
              hideOnNarrow: true,
              cell: (j) =>
                `${j.salaryMin.toLocaleString()}–${j.salaryMax.toLocaleString()} ${j.salaryCurrency}`,
            },
            {
              header: "Actions",
              align: "end",
              cell: (j) => (
                <span className="actions">
                  <Button
                    size="sm"
                    aria-label={appliedTo.has(j.id) ? `Applied to ${j.title}` : `Apply to ${j.title}`}
                    disabled={appliedTo.has(j.id)}
                    onClick={() => apply(j)}
                  >
                    {appliedTo.has(j.id) ? "Applied" : "Apply"}
                  </Button>
                  <Button
                    size="sm"
                    variant="secondary"
                    aria-label={
                      claimed.has(j.id)
                        ? `${agentName} claimed ${j.title}`
                        : `Claim ${j.title} with ${agentName}`
                    }
                    disabled={claimed.has(j.id) || action.running?.startsWith("claim-")}
                    busy={action.running === `claim-${j.id}`}
                    busyLabel="Claiming…"
                    onClick={() => claim(j)}
                  >
                    {claimed.has(j.id) ? "Claimed" : "Claim"}
                  </Button>
                </span>
              ),
            },
          ]}
        />
      ) : null}
      <ActionStatus action={action} loadError={board.error ?? claims.error} />
    </Card>
  );
}
