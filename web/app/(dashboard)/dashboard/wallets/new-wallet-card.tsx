"use client";

import { useState } from "react";
import { api } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, EmptyState, Field, SelectField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { AgentWalletView } from "@/lib/wallets/inputs";

/** Creates (a viem key) or imports (32-byte hex) the wallet of an agent that has none. */
export function NewWalletCard({ agents, onDone }: { agents: AgentChoice[]; onDone: () => Promise<void> }) {
  const [mode, setMode] = useState<"create-wallet" | "register-wallet">("create-wallet");
  const action = useAction();

  async function submit(data: FormData, form: HTMLFormElement) {
    const created = await api<AgentWalletView>("/api/agent/mpp", {
      json: {
        action: mode,
        agentId: data.get("walletAgent"),
        companyId: data.get("companyId"),
        ...(mode === "register-wallet" ? { privateKey: data.get("privateKey") } : {}),
      },
    });
    form.reset();
    await onDone();
    return `Wallet ${created.address} ready.`;
  }

  return (
    <Card
      title="New wallet"
      description="Generate a key, or import one you hold (32-byte hex)."
      testId="new-wallet"
    >
      <ActionForm
        action={action}
        label="Create or import a wallet"
        onSubmit={submit}
        submit={mode === "create-wallet" ? "Create wallet" : "Import wallet"}
        busyLabel={mode === "create-wallet" ? "Creating…" : "Importing…"}
        breakAnywhere
        replacedBy={
          agents.length === 0 ? (
            <EmptyState title="Every agent has a wallet">
              Deploy another agent to give it a wallet.
            </EmptyState>
          ) : undefined
        }
      >
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
      </ActionForm>
    </Card>
  );
}
