"use client";

import { Card, DataTable, EmptyState } from "@/components/ui";
import type { L1Wallet } from "@/lib/chain/inputs";
import { AddressLookup } from "./address-lookup";
import { formatAmount } from "./format";

/** Looks up an address: SOL balance, the 20 largest token balances, account info. */
export function WalletLookupPanel() {
  return (
    <Card
      title="Wallet lookup"
      description="Any Solana address, through your RPC endpoint."
      testId="wallet-lookup"
    >
      <AddressLookup<L1Wallet>
        path="/api/l1/wallet"
        formLabel="Look up a wallet"
        fieldLabel="Address"
        name="lookupAddress"
        submit="Look up"
        busyLabel="Looking up…"
      >
        {(wallet) => <WalletFacts wallet={wallet} />}
      </AddressLookup>
    </Card>
  );
}

/** The address's SOL balance, account and tokens. */
function WalletFacts({ wallet }: { wallet: L1Wallet }) {
  return (
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
  );
}
