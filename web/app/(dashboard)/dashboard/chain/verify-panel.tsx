"use client";

import { useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, DataTable, Field, StatusBadge } from "@/components/ui";
import type { L1Verify } from "@/lib/chain/inputs";
import { formatAmount } from "./format";

/** The platform token balance of an address and the holder tiers it reaches. */
export function VerifyPanel() {
  const [result, setResult] = useState<L1Verify | null>(null);
  const action = useAction();

  async function verify(data: FormData) {
    const address = String(data.get("verifyAddress") ?? "").trim();
    setResult(null);
    setResult(await api<L1Verify>(`/api/l1/verify?address=${encodeURIComponent(address)}`));
  }

  const top = result?.benefits.at(-1)?.tier;
  return (
    <Card
      title="Token holder tiers"
      description="Holding the platform token unlocks credits and radio perks."
      testId="token-verify"
    >
      <ActionForm
        action={action}
        label="Check a holder"
        onSubmit={verify}
        className="inline"
        submit="Check tier"
      >
        <Field
          label="Holder address"
          name="verifyAddress"
          required
          minLength={32}
          maxLength={44}
          autoComplete="off"
        />
      </ActionForm>
      {result ? (
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
      ) : null}
      {result ? (
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
      ) : null}
    </Card>
  );
}
