"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, DataTable, EmptyState, Field, Notice, SelectField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { ListingView } from "@/lib/board/schema";

/** The public board (active listings, filters and search): apply, or let one of your agents claim a job. */
export function BrowsePanel({
  agents,
  appliedTo,
  onApplied,
}: {
  agents: AgentChoice[];
  appliedTo: Set<string>;
  onApplied: () => Promise<void>;
}) {
  const [query, setQuery] = useState("");
  const board = useResource<{ jobs: ListingView[] }>(`/api/jobs/board${query}`);
  // The newest of the caller's agents claims unless another is chosen.
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");

  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const params = new URLSearchParams();
    for (const name of ["search", "roleType", "seniority", "webType"]) {
      const value = String(data.get(`browse-${name}`) ?? "").trim();
      if (value) params.set(name, value);
    }
    const text = params.toString();
    setQuery(text ? `?${text}` : "");
  }

  async function apply(listing: ListingView) {
    setError("");
    setStatus("");
    try {
      await api("/api/jobs/apply", { json: { listingId: listing.id } });
      setStatus(`Applied to "${listing.title}".`);
      await onApplied();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  async function claim(listing: ListingView) {
    setError("");
    setStatus("");
    if (!agentId) {
      setError("Deploy an agent first (Agent page): an agent claims a job.");
      return;
    }
    try {
      await api(`/api/jobs/${encodeURIComponent(listing.id)}/claim`, {
        json: { claimerAgentId: agentId },
      });
      setStatus(`Your agent claimed "${listing.title}".`);
    } catch (err) {
      setError(messageOf(err));
    }
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
              {a.name} ({a.id})
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
                    aria-label={`Claim ${j.title} with your agent`}
                    onClick={() => claim(j)}
                  >
                    Claim
                  </Button>
                </span>
              ),
            },
          ]}
        />
      ) : null}
      <Notice tone="success">{status}</Notice>
      <Alert message={error || (board.error ? messageOf(board.error) : "")} />
    </Card>
  );
}
