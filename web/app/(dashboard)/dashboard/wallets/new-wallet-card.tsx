"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf } from "@/components/data";
import { Alert, Button, Card, EmptyState, Field, Notice, SelectField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { AgentWalletView } from "@/lib/wallets/inputs";

/** Creates (a viem key) or imports (32-byte hex) the wallet of an agent that has none. */
export function NewWalletCard({ agents, onDone }: { agents: AgentChoice[]; onDone: () => Promise<void> }) {
  const [mode, setMode] = useState<"create-wallet" | "register-wallet">("create-wallet");
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setError("");
    setStatus("");
    setBusy(true);
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
    } finally {
      setBusy(false);
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
        <form method="post" onSubmit={submit} aria-label="Create or import a wallet">
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
          <Button type="submit" busy={busy} busyLabel={mode === "create-wallet" ? "Creating…" : "Importing…"}>
            {mode === "create-wallet" ? "Create wallet" : "Import wallet"}
          </Button>
        </form>
      )}
      <Notice tone="success">
        {status ? <span style={{ overflowWrap: "anywhere" }}>{status}</span> : ""}
      </Notice>
      <Alert message={error} />
    </Card>
  );
}
