"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf } from "@/components/data";
import { Alert, Button, Card, DataTable, EmptyState, Field } from "@/components/ui";
import type { L1Wallet } from "@/lib/chain/inputs";
import { formatAmount } from "./format";

/** Looks up an address: SOL balance, the 20 largest token balances, account info. */
export function WalletLookupPanel() {
  const [wallet, setWallet] = useState<L1Wallet | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function lookup(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const address = String(new FormData(event.currentTarget).get("lookupAddress") ?? "").trim();
    setError("");
    setBusy(true);
    try {
      setWallet(await api<L1Wallet>(`/api/l1/wallet?address=${encodeURIComponent(address)}`));
    } catch (err) {
      setWallet(null);
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card
      title="Wallet lookup"
      description="Any Solana address, through your RPC endpoint."
      testId="wallet-lookup"
    >
      <form method="post" onSubmit={lookup} className="inline" aria-label="Look up a wallet">
        <Field
          label="Address"
          name="lookupAddress"
          required
          minLength={32}
          maxLength={44}
          autoComplete="off"
        />
        <Button type="submit" busy={busy} busyLabel="Looking up…">
          Look up
        </Button>
      </form>
      <Alert message={error} />
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
