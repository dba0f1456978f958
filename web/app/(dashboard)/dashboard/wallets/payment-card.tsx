"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf } from "@/components/data";
import { Alert, Button, Card, EmptyState, Field, SelectField, StatusBadge } from "@/components/ui";
import type { AgentWalletView, PaymentResult } from "@/lib/wallets/inputs";

/** Calls a URL as an agent; on HTTP 402 its wallet pays. */
export function PaymentCard(props: {
  wallets: AgentWalletView[];
  nameOf: (id: string) => string;
  onDone: () => Promise<void>;
}) {
  const [result, setResult] = useState<PaymentResult | null>(null);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  async function pay(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setError("");
    setResult(null);
    setBusy(true);
    try {
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
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
      await props.onDone();
    }
  }
  return (
    <Card
      title="Make a payment"
      description="Calls the URL; on HTTP 402 the agent's wallet pays and retries once."
      testId="make-payment"
    >
      {props.wallets.length === 0 ? (
        <EmptyState title="No wallet yet">Create a wallet first.</EmptyState>
      ) : (
        <form method="post" onSubmit={pay} aria-label="Make a payment">
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
          <Button type="submit" busy={busy} busyLabel="Paying…">
            Call and pay
          </Button>
        </form>
      )}
      <Alert message={error} />
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
