"use client";

import { api, useResource } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, Field, StatusBadge } from "@/components/ui";
import type { RpcConfig } from "@/lib/chain/inputs";

/** The RPC endpoint wallet lookups use: the platform default, or an HTTPS URL of the user's own. */
export function RpcConfigPanel() {
  const config = useResource<RpcConfig>("/api/l1/rpc-config");
  // Every refusal is about the URL.
  const action = useAction({ fields: () => "rpcUrl" });

  async function save(data: FormData) {
    const rpcUrl = String(data.get("rpcUrl") ?? "");
    const saved = await api<{ rpcUrl: string }>("/api/l1/rpc-config", { json: { rpcUrl } });
    await config.reload();
    return `Saved: wallet lookups now use ${saved.rpcUrl}.`;
  }

  return (
    <Card title="RPC endpoint" description="Wallet lookups call this JSON-RPC URL." testId="rpc-config">
      {config.data ? (
        <dl className="facts">
          <div>
            <dt>In use</dt>
            <dd>
              <code data-testid="rpc-url" style={{ overflowWrap: "anywhere" }}>
                {config.data.rpcUrl}
              </code>
            </dd>
          </div>
          <div>
            <dt>Source</dt>
            <dd>
              <StatusBadge
                status={config.data.source}
                tone={config.data.source === "user" ? "ok" : "neutral"}
              >
                {config.data.source === "user" ? "your URL" : "platform default"}
              </StatusBadge>
            </dd>
          </div>
        </dl>
      ) : null}
      <ActionForm
        action={action}
        label="Save your RPC URL"
        onSubmit={save}
        submit="Save RPC URL"
        breakAnywhere
        loadError={config.error}
      >
        <Field
          label="Your RPC URL"
          name="rpcUrl"
          type="url"
          required
          placeholder="https://…"
          hint="HTTPS only, with your real key; the host must be a public address."
          error={action.fieldErrors.rpcUrl}
        />
      </ActionForm>
    </Card>
  );
}
