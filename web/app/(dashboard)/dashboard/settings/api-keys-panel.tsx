"use client";

import { type FormEvent, useState } from "react";
import { api, fieldOf, messageOf, useResource } from "@/components/data";
import {
  Alert,
  Button,
  Card,
  ConfirmButton,
  DataTable,
  DateTime,
  EmptyState,
  Field,
  Notice,
} from "@/components/ui";
import type { ApiKeySummary, CreatedApiKey } from "@/lib/apikeys/service";

/** The user's API keys: listed by prefix, created (the raw key shown once), deleted after a confirmation. */
export function ApiKeysPanel() {
  const keys = useResource<{ keys: ApiKeySummary[] }>("/api/keys");
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [nameError, setNameError] = useState("");
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("keyName") ?? "");
    setNameError("");
    setError("");
    setStatus("");
    setBusy(true);
    try {
      setCreated(await api<CreatedApiKey>("/api/keys", { json: { name } }));
      form.reset();
      await keys.reload();
    } catch (err) {
      const message = messageOf(err);
      if (fieldOf(err, ["name"])) setNameError(message);
      else setError(message);
    } finally {
      setBusy(false);
    }
  }

  async function remove(key: ApiKeySummary) {
    setError("");
    setStatus("");
    try {
      await api(`/api/keys/${encodeURIComponent(key.id)}`, { method: "DELETE" });
      if (created?.id === key.id) setCreated(null);
      setStatus(`API key "${key.name}" deleted.`);
      await keys.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  return (
    <Card
      title="API keys"
      testId="api-keys-card"
      description={
        <>
          Programs use a key as <code>Authorization: Bearer svc_…</code>. Up to 10 keys.
        </>
      }
    >
      {keys.loading ? <p className="muted">Loading…</p> : null}
      {keys.data ? (
        <DataTable
          caption="Your API keys"
          captionHidden
          testId="api-keys"
          rows={keys.data.keys}
          rowKey={(k) => k.id}
          empty={<EmptyState title="No API keys yet">Create one below for a script or a CI job.</EmptyState>}
          columns={[
            { header: "Name", cell: (k) => <strong>{k.name}</strong> },
            { header: "Key", cell: (k) => <code>{k.prefix}…</code> },
            {
              header: "Created",
              hideOnNarrow: true,
              cell: (k) => <DateTime value={k.createdAt} style="date" />,
            },
            {
              header: "Last used",
              hideOnNarrow: true,
              cell: (k) => (k.lastUsedAt ? <DateTime value={k.lastUsedAt} /> : "never"),
            },
            {
              header: "Actions",
              align: "end",
              cell: (k) => (
                <ConfirmButton
                  size="sm"
                  aria-label={`Delete API key ${k.name}`}
                  question={`Delete "${k.name}"? Programs using it stop working.`}
                  confirmLabel="Delete key"
                  onConfirm={() => remove(k)}
                >
                  Delete
                </ConfirmButton>
              ),
            },
          ]}
        />
      ) : null}
      {created ? (
        <Notice tone="success">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now; it is not shown again:
          </p>
          <p>
            <code className="secret" data-testid="new-api-key">
              {created.key}
            </code>
          </p>
        </Notice>
      ) : null}
      <Notice>{status}</Notice>
      <form method="post" onSubmit={create} className="inline" aria-label="Create an API key">
        <Field label="Key name" name="keyName" required maxLength={64} error={nameError} />
        <Button type="submit" busy={busy} busyLabel="Creating…">
          Create key
        </Button>
      </form>
      <Alert message={error || (keys.error ? messageOf(keys.error) : "")} />
    </Card>
  );
}
