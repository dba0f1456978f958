"use client";

import { Card, DataTable, StatusBadge } from "@/components/ui";
import type { L1Verify } from "@/lib/chain/inputs";
import { AddressLookup } from "./address-lookup";
import { formatAmount } from "./format";

/** The platform token balance of an address and the holder tiers it reaches. */
export function VerifyPanel() {
  return (
    <Card
      title="Token holder tiers"
      description="Holding the platform token unlocks credits and radio perks."
      testId="token-verify"
    >
      <AddressLookup<L1Verify>
        path="/api/l1/verify"
        formLabel="Check a holder"
        fieldLabel="Holder address"
        name="verifyAddress"
        submit="Check tier"
      >
        {(result) => <Tiers result={result} />}
      </AddressLookup>
    </Card>
  );
}

/** The balance, the highest tier it reaches, and every tier with its minimum. */
function Tiers({ result }: { result: L1Verify }) {
  const top = result.benefits.at(-1)?.tier;
  return (
    <>
      <dl className="facts">
        <div>
          <dt>Balance</dt>
          <dd data-testid="token-balance">{formatAmount(result.balance)}</dd>
        </div>
        <div>
          <dt>Tier</dt>
          <dd data-testid="token-tier">
            {top ? (
              <StatusBadge status="ok">{top}</StatusBadge>
            ) : (
              <StatusBadge status="off">not eligible</StatusBadge>
            )}
          </dd>
        </div>
      </dl>
      <DataTable
        caption="Tiers"
        testId="token-tiers"
        rows={result.tiers}
        rowKey={(t) => t.name}
        empty={null}
        columns={[
          {
            header: "Tier",
            cell: (t) => (
              <>
                <strong>{t.name}</strong>
                {/* On a phone the credits sit under the tier: five columns would not fit. */}
                <div className="narrow-only hint">{t.credits} credits</div>
              </>
            ),
          },
          { header: "Minimum", align: "end", cell: (t) => formatAmount(t.min) },
          { header: "Credits", align: "end", hideOnNarrow: true, cell: (t) => t.credits },
          { header: "Radio perk", hideOnNarrow: true, cell: (t) => t.basefm },
          {
            header: "Reached",
            cell: (t) => (result.balance >= t.min ? <StatusBadge status="ok">yes</StatusBadge> : "no"),
          },
        ]}
      />
    </>
  );
}
