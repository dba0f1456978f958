"use client";

import { useEffect, useState } from "react";
import { api } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Button, Card, DataTable, EmptyState } from "@/components/ui";
import type { AgentWalletView } from "@/lib/wallets/inputs";

/**
 * The user's agents' wallets, each balance read on demand and re-readable; the balances read are forgotten
 * after every payment (`paymentsMade` changes), as they are stale then.
 */
export function WalletList(props: {
  wallets: AgentWalletView[] | undefined;
  loading: boolean;
  error: unknown;
  nameOf: (id: string) => string;
  paymentsMade: number;
}) {
  const [balances, setBalances] = useState<Record<string, string>>({});
  const action = useAction();
  const { paymentsMade } = props;
  useEffect(() => {
    if (paymentsMade > 0) setBalances({});
  }, [paymentsMade]);
  const balance = (agentId: string) =>
    action.run(async () => {
      const read = await api<{ balance: string }>(
        `/api/agent/mpp?action=get-balance&agentId=${encodeURIComponent(agentId)}`,
      );
      setBalances((all) => ({ ...all, [agentId]: read.balance }));
    }, agentId);

  return (
    <Card
      title="Agent wallets"
      description="One wallet per agent; its private key never leaves the server."
      testId="agent-wallets"
    >
      {props.loading ? <p className="muted">Loading…</p> : null}
      {props.wallets ? (
        <DataTable
          caption="Your agents' wallets"
          captionHidden
          testId="wallets-table"
          rows={props.wallets}
          rowKey={(w) => w.agentId}
          empty={<EmptyState title="No wallets yet">Create one for an agent below.</EmptyState>}
          columns={[
            { header: "Agent", cell: (w) => <strong>{props.nameOf(w.agentId)}</strong> },
            { header: "Label", hideOnNarrow: true, cell: (w) => w.companyId },
            { header: "Address", cell: (w) => <code className="break-anywhere">{w.address}</code> },
            {
              header: "Balance",
              align: "end",
              cell: (w) =>
                balances[w.agentId] !== undefined ? (
                  <span className="actions" style={{ justifyContent: "flex-end" }}>
                    <span data-testid={`balance-${w.agentId}`}>{balances[w.agentId]}</span>
                    <Button
                      size="sm"
                      variant="ghost"
                      busy={action.running === w.agentId}
                      onClick={() => balance(w.agentId)}
                      aria-label={`Read the balance of ${props.nameOf(w.agentId)}'s wallet again`}
                    >
                      Re-read
                    </Button>
                  </span>
                ) : (
                  <Button
                    size="sm"
                    variant="secondary"
                    busy={action.running === w.agentId}
                    busyLabel="Reading…"
                    onClick={() => balance(w.agentId)}
                    aria-label={`Read the balance of ${props.nameOf(w.agentId)}'s wallet`}
                  >
                    Read balance
                  </Button>
                ),
            },
          ]}
        />
      ) : null}
      <ActionStatus action={action} loadError={props.error} />
    </Card>
  );
}
