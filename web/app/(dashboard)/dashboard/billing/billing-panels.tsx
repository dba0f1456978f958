"use client";

import type { ReactNode } from "react";
import { messageOf, useResource } from "@/components/data";
import { Alert, Card, DataTable, EmptyState, StatusBadge } from "@/components/ui";
import type { BillingOverview } from "@/lib/gateway/inputs";

/** The buy-credit route: a card checkout for one credit pack (the 402 answers link to it too). */
const CHECKOUT_URL = "/api/v1/payments/card/create?plugin=agent";

/** Why a plugin cannot be called, in the price list's words. */
const UNAVAILABLE_WORDS = { no_upstream: "no upstream", no_ai_provider: "no AI provider" } as const;

/** Whether a plugin can be called here, or why not. */
function PluginStatus({ plugin }: { plugin: BillingOverview["plugins"][number] }) {
  return plugin.available ? (
    <StatusBadge status="ok" tone="ok">
      available
    </StatusBadge>
  ) : (
    <StatusBadge status="unconfigured" tone="neutral">
      {plugin.unavailableReason ? UNAVAILABLE_WORDS[plugin.unavailableReason] : "unavailable"}
    </StatusBadge>
  );
}

/**
 * The user's card credit with its "Buy credit" button (or, card payments off, `cardUnavailable` in its
 * place), and the plugins' prices per call.
 */
export function BillingPanels({ cardUnavailable }: { cardUnavailable: ReactNode }) {
  const billing = useResource<BillingOverview>("/api/gateway/billing");
  const b = billing.data;
  return (
    <>
      <Card
        title="Card credit"
        testId="card-credit"
        description="Gateway calls paid by card take their price from this prepaid credit."
      >
        {b ? (
          <>
            <dl className="facts">
              <div>
                <dt>Credit</dt>
                <dd data-testid="credit-balance">{b.credit} USD</dd>
              </div>
            </dl>
            {b.cardConfigured ? (
              <>
                <p>
                  <a className="button" href={CHECKOUT_URL} data-testid="buy-credit">
                    Buy credit ({b.creditPack} USD)
                  </a>
                </p>
                <p className="hint">Credit appears once the card provider confirms the payment.</p>
              </>
            ) : (
              cardUnavailable
            )}
          </>
        ) : billing.loading ? (
          <p className="muted">Loading…</p>
        ) : null}
      </Card>
      <Card title="Plugin prices" testId="plugin-prices" description="What one call of each plugin costs.">
        {b ? (
          <DataTable
            caption="Plugin prices per call"
            captionHidden
            testId="plugin-price-list"
            rows={b.plugins}
            rowKey={(p) => p.id}
            empty={<EmptyState title="No plugins">This server registers no gateway plugins.</EmptyState>}
            columns={[
              {
                header: "Plugin",
                cell: (p) => (
                  <>
                    <code>{p.id}</code>
                    {/* On a phone the status sits under the plugin: three columns would not fit. */}
                    <div className="narrow-only" style={{ marginTop: "var(--space-1)" }}>
                      <PluginStatus plugin={p} />
                    </div>
                  </>
                ),
              },
              { header: "Name", hideOnNarrow: true, cell: (p) => p.name },
              { header: "Price per call", cell: (p) => `${p.price} USD` },
              { header: "Streams", hideOnNarrow: true, cell: (p) => (p.streaming ? "yes" : "no") },
              { header: "Status", hideOnNarrow: true, cell: (p) => <PluginStatus plugin={p} /> },
            ]}
          />
        ) : null}
      </Card>
      <Alert message={billing.error ? messageOf(billing.error) : null} />
    </>
  );
}
