"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf, useResource } from "@/components/data";
import {
  Alert,
  Button,
  Card,
  DataTable,
  EmptyState,
  Field,
  Notice,
  SelectField,
  StatusBadge,
} from "@/components/ui";
import type { AgentWalletView, PaymentRecord, PaymentResult } from "@/lib/wallets/schema";

interface AgentChoice {
  id: string;
  name: string;
}

/** Wallets (create, import, balance), the payment form and the payments ledger. */
export function WalletsView({ agents }: { agents: AgentChoice[] }) {
  const wallets = useResource<{ wallets: AgentWalletView[] }>("/api/agent/mpp?action=list-wallets");
  const payments = useResource<{ payments: PaymentRecord[] }>("/api/agent/mpp?action=list-payments");
  const reloadAll = () => Promise.all([wallets.reload(), payments.reload()]).then(() => undefined);
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
      />
      <div className="grid">
        <NewWalletCard agents={without} onDone={reloadAll} />
        <PaymentCard wallets={wallets.data?.wallets ?? []} nameOf={nameOf} onDone={reloadAll} />
      </div>
      <LedgerCard payments={payments.data?.payments} error={payments.error} nameOf={nameOf} />
    </>
  );
}

function WalletList(props: {
  wallets: AgentWalletView[] | undefined;
  loading: boolean;
  error: unknown;
  nameOf: (id: string) => string;
}) {
  const [balances, setBalances] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  async function balance(agentId: string) {
    setError("");
    try {
      const read = await api<{ balance: string }>(
        `/api/agent/mpp?action=get-balance&agentId=${encodeURIComponent(agentId)}`,
      );
      setBalances((all) => ({ ...all, [agentId]: read.balance }));
    } catch (err) {
      setError(messageOf(err));
    }
  }
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
            { header: "Address", cell: (w) => <code>{w.address}</code> },
            {
              header: "Balance",
              align: "end",
              cell: (w) =>
                balances[w.agentId] !== undefined ? (
                  <span data-testid={`balance-${w.agentId}`}>{balances[w.agentId]}</span>
                ) : (
                  <Button
                    size="sm"
                    variant="secondary"
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
      <Alert message={error || (props.error ? messageOf(props.error) : "")} />
    </Card>
  );
}

function NewWalletCard({ agents, onDone }: { agents: AgentChoice[]; onDone: () => Promise<void> }) {
  const [mode, setMode] = useState<"create-wallet" | "register-wallet">("create-wallet");
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setError("");
    setStatus("");
    try {
      const created = await api<AgentWalletView>("/api/agent/mpp", {
        json: {
          action: mode,
          agentId: data.get("walletAgent"),
          companyId: data.get("companyId"),
          ...(mode === "register-wallet" ? { privateKey: data.get("privateKey") } : {}),
        },
      });
      form.reset();
      setStatus(`Wallet ${created.address} ready.`);
      await onDone();
    } catch (err) {
      setError(messageOf(err));
    }
  }
  return (
    <Card
      title="New wallet"
      description="Generate a key, or import one you hold (32-byte hex)."
      testId="new-wallet"
    >
      {agents.length === 0 ? (
        <EmptyState title="Every agent has a wallet">Deploy another agent to give it a wallet.</EmptyState>
      ) : (
        <form onSubmit={submit} aria-label="Create or import a wallet">
          <SelectField label="Agent" name="walletAgent" required>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.id})
              </option>
            ))}
          </SelectField>
          <Field label="Label (company)" name="companyId" required maxLength={64} />
          <SelectField
            label="Key"
            name="walletMode"
            value={mode}
            onChange={(e) => setMode(e.currentTarget.value as typeof mode)}
          >
            <option value="create-wallet">Generate a new key</option>
            <option value="register-wallet">Import a private key</option>
          </SelectField>
          {mode === "register-wallet" ? (
            <Field label="Private key (hex)" name="privateKey" type="password" required autoComplete="off" />
          ) : null}
          <Button type="submit">{mode === "create-wallet" ? "Create wallet" : "Import wallet"}</Button>
        </form>
      )}
      <Notice tone="success">{status}</Notice>
      <Alert message={error} />
    </Card>
  );
}

function PaymentCard(props: {
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
        <form onSubmit={pay} aria-label="Make a payment">
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
          <Button type="submit" aria-busy={busy}>
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
          <pre>
            {typeof result.result.body === "string"
              ? result.result.body
              : JSON.stringify(result.result.body, null, 2)}
          </pre>
        </div>
      ) : null}
    </Card>
  );
}

const outcomeTone = { paid: "ok", pending: "warn", refused: "bad", failed: "bad", error: "bad" } as const;

function LedgerCard(props: {
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
            { header: "When", hideOnNarrow: true, cell: (p) => new Date(p.createdAt).toLocaleString() },
            { header: "Agent", cell: (p) => props.nameOf(p.agentId) },
            { header: "Host", cell: (p) => p.host },
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
              cell: (p) => <code>{p.reason ?? p.reference ?? ""}</code>,
            },
          ]}
        />
      ) : null}
      <Alert message={props.error ? messageOf(props.error) : ""} />
    </Card>
  );
}
