"use client";

import { useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, EmptyState, Field, SelectField, StatusBadge } from "@/components/ui";
import type { AgentWalletView, PaymentResult } from "@/lib/wallets/inputs";

/** Calls a URL as an agent; on HTTP 402 its wallet pays. */
export function PaymentCard(props: {
  wallets: AgentWalletView[];
  nameOf: (id: string) => string;
  onDone: () => Promise<void>;
}) {
  const [result, setResult] = useState<PaymentResult | null>(null);
  // Paid or not, the wallets and the ledger are read again.
  const action = useAction({ after: props.onDone });

  async function pay(data: FormData) {
    setResult(null);
    setResult(
      await api<PaymentResult>("/api/agent/mpp", {
        json: {
          action: "make-payment",
          agentId: data.get("payAgent"),
          url: data.get("payUrl"),
          method: data.get("payMethod"),
        },
      }),
    );
  }

  return (
    <Card
      title="Make a payment"
      description="Calls the URL; on HTTP 402 the agent's wallet pays and retries once."
      testId="make-payment"
    >
      <ActionForm
        action={action}
        label="Make a payment"
        onSubmit={pay}
        submit="Call and pay"
        busyLabel="Paying…"
        replacedBy={
          props.wallets.length === 0 ? (
            <EmptyState title="No wallet yet">Create a wallet first.</EmptyState>
          ) : undefined
        }
      >
        <SelectField label="Paying agent" name="payAgent" required>
          {props.wallets.map((w) => (
            <option key={w.agentId} value={w.agentId}>
              {props.nameOf(w.agentId)}
            </option>
          ))}
        </SelectField>
        <Field label="URL" name="payUrl" type="url" required placeholder="https://…" />
        <SelectField label="Method" name="payMethod" defaultValue="GET">
          <option>GET</option>
          <option>POST</option>
        </SelectField>
      </ActionForm>
      {result ? (
        <div data-testid="payment-result">
          <p>
            Answer:{" "}
            <StatusBadge status={result.result.status < 400 ? "ok" : "error"}>
              HTTP {result.result.status}
            </StatusBadge>
            {result.payment
              ? ` — paid ${result.payment.amountUsd} USD (${result.payment.protocol})`
              : " — no payment needed"}
          </p>
          <pre className="code-block">
            {typeof result.result.body === "string"
              ? result.result.body
              : JSON.stringify(result.result.body, null, 2)}
          </pre>
        </div>
      ) : null}
    </Card>
  );
}
