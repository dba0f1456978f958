"use client";

import { useState } from "react";
import { useResource } from "@/components/data";
import type { AgentChoice } from "@/lib/agents/choices";
import type { AgentWalletView, PaymentRecord } from "@/lib/wallets/inputs";
import { LedgerCard } from "./ledger-card";
import { NewWalletCard } from "./new-wallet-card";
import { PaymentCard } from "./payment-card";
import { WalletList } from "./wallet-list";

/** Wallets (create, import, balance), the payment form and the payments ledger. */
export function WalletsView({ agents }: { agents: AgentChoice[] }) {
  const wallets = useResource<{ wallets: AgentWalletView[] }>("/api/agent/mpp?action=list-wallets");
  const payments = useResource<{ payments: PaymentRecord[] }>("/api/agent/mpp?action=list-payments");
  const reloadAll = () => Promise.all([wallets.reload(), payments.reload()]).then(() => undefined);
  // Counts the payments made here: each one makes the balances read before it stale.
  const [paymentsMade, setPaymentsMade] = useState(0);
  const afterPayment = () => {
    setPaymentsMade((n) => n + 1);
    return reloadAll();
  };
  const withWallet = new Set(wallets.data?.wallets.map((w) => w.agentId));
  const without = agents.filter((a) => !withWallet.has(a.id));
  const nameOf = (agentId: string) => agents.find((a) => a.id === agentId)?.name ?? agentId;
  return (
    <>
      <WalletList
        wallets={wallets.data?.wallets}
        loading={wallets.loading}
        error={wallets.error}
        nameOf={nameOf}
        paymentsMade={paymentsMade}
      />
      <div className="grid">
        <NewWalletCard agents={without} onDone={reloadAll} />
        <PaymentCard wallets={wallets.data?.wallets ?? []} nameOf={nameOf} onDone={afterPayment} />
      </div>
      <LedgerCard payments={payments.data?.payments} error={payments.error} nameOf={nameOf} />
    </>
  );
}
