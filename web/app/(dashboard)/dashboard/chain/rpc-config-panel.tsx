"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, Field, Notice, StatusBadge } from "@/components/ui";
import type { RpcConfig } from "@/lib/chain/inputs";

/** The RPC endpoint wallet lookups use: the platform default, or an HTTPS URL of the user's own. */
export function RpcConfigPanel() {
  const config = useResource<RpcConfig>("/api/l1/rpc-config");
  const [fieldError, setFieldError] = useState("");
  const [status, setStatus] = useState("");

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const rpcUrl = String(new FormData(event.currentTarget).get("rpcUrl") ?? "");
    setFieldError("");
    setStatus("");
    try {
      const saved = await api<{ rpcUrl: string }>("/api/l1/rpc-config", { json: { rpcUrl } });
      setStatus(`Saved: wallet lookups now use ${saved.rpcUrl}.`);
      await config.reload();
    } catch (err) {
      setFieldError(messageOf(err));
    }
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
      <form method="post" onSubmit={save} aria-label="Save your RPC URL">
        <Field
          label="Your RPC URL"
          name="rpcUrl"
          type="url"
          required
          placeholder="https://…"
          hint="HTTPS only, with your real key; the host must be a public address."
          error={fieldError}
        />
        <Button type="submit">Save RPC URL</Button>
      </form>
      <Notice tone="success">
        {status ? <span style={{ overflowWrap: "anywhere" }}>{status}</span> : ""}
      </Notice>
      <Alert message={config.error ? messageOf(config.error) : ""} />
    </Card>
  );
}
