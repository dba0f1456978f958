"use client";

import { messageOf } from "@/components/data";
import { Alert, Card, DataTable, DateTime, EmptyState, StatusBadge } from "@/components/ui";
import type { PaymentRecord } from "@/lib/wallets/inputs";

const outcomeTone = { paid: "ok", pending: "warn", refused: "bad", failed: "bad", error: "bad" } as const;

/** Every payment attempt, newest first. */
export function LedgerCard(props: {
  payments: PaymentRecord[] | undefined;
  error: unknown;
  nameOf: (id: string) => string;
}) {
  return (
    <Card title="Payments ledger" description="Every payment attempt, newest first." testId="payments-ledger">
      {props.payments ? (
        <DataTable
          caption="Payments"
          captionHidden
          testId="payments-table"
          rows={props.payments}
          rowKey={(p) => p.id}
          empty={<EmptyState title="No payments yet">Attempts appear here, paid or refused.</EmptyState>}
          columns={[
            { header: "When", hideOnNarrow: true, cell: (p) => <DateTime value={p.createdAt} /> },
            { header: "Agent", cell: (p) => props.nameOf(p.agentId) },
            { header: "Host", cell: (p) => <span className="break-anywhere">{p.host}</span> },
            { header: "Amount", align: "end", cell: (p) => (p.amountUsd ? `${p.amountUsd} USD` : "—") },
            { header: "Protocol", hideOnNarrow: true, cell: (p) => p.protocol ?? "—" },
            { header: "Network", hideOnNarrow: true, cell: (p) => p.network ?? "—" },
            {
              header: "Outcome",
              cell: (p) => (
                <span title={p.reason ?? undefined}>
                  <StatusBadge status={p.outcome} tone={outcomeTone[p.outcome]} />
                </span>
              ),
            },
            {
              header: "Reason / reference",
              hideOnNarrow: true,
              cell: (p) => <code className="break-anywhere">{p.reason ?? p.reference ?? ""}</code>,
            },
          ]}
        />
      ) : null}
      <Alert message={props.error ? messageOf(props.error) : ""} />
    </Card>
  );
}
