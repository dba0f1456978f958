"use client";

import { useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, DataTable, EmptyState, Field } from "@/components/ui";
import type { L1Wallet } from "@/lib/chain/inputs";
import { formatAmount } from "./format";

/** Looks up an address: SOL balance, the 20 largest token balances, account info. */
export function WalletLookupPanel() {
  const [wallet, setWallet] = useState<L1Wallet | null>(null);
  const action = useAction();

  async function lookup(data: FormData) {
    const address = String(data.get("lookupAddress") ?? "").trim();
    setWallet(null);
    setWallet(await api<L1Wallet>(`/api/l1/wallet?address=${encodeURIComponent(address)}`));
  }

  return (
    <Card
      title="Wallet lookup"
      description="Any Solana address, through your RPC endpoint."
      testId="wallet-lookup"
    >
      <ActionForm
        action={action}
        label="Look up a wallet"
        onSubmit={lookup}
        className="inline"
        submit="Look up"
        busyLabel="Looking up…"
      >
        <Field
          label="Address"
          name="lookupAddress"
          required
          minLength={32}
          maxLength={44}
          autoComplete="off"
        />
      </ActionForm>
      {wallet ? (
        <>
          <dl className="facts">
            <div>
              <dt>SOL balance</dt>
              <dd data-testid="sol-balance">{formatAmount(wallet.solBalance)} SOL</dd>
            </div>
            <div>
              <dt>Executable</dt>
              <dd>{wallet.accountInfo.isExecutable ? "yes" : "no"}</dd>
            </div>
            <div>
              <dt>Owner program</dt>
              <dd style={{ overflowWrap: "anywhere" }}>
                {wallet.accountInfo.owner ? <code>{wallet.accountInfo.owner}</code> : "no account"}
              </dd>
            </div>
            <div>
              <dt>Rent epoch</dt>
              <dd>{wallet.accountInfo.rentEpoch ?? "—"}</dd>
            </div>
          </dl>
          <DataTable
            caption="Tokens held"
            testId="wallet-tokens"
            rows={wallet.tokens}
            rowKey={(t) => t.mint}
            empty={<EmptyState title="No tokens">This address holds no token balance.</EmptyState>}
            columns={[
              { header: "Token", cell: (t) => <strong>{t.symbol}</strong> },
              { header: "Amount", align: "end", cell: (t) => formatAmount(t.amount) },
              { header: "Mint", hideOnNarrow: true, cell: (t) => <code>{t.mint}</code> },
            ]}
          />
        </>
      ) : null}
    </Card>
  );
}
