"use client";

import { startRegistration } from "@simplewebauthn/browser";
import { type FormEvent, useState } from "react";
import { ApiError, api, type Json, messageOf, useResource } from "@/components/data";
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
import { passkeyErrorHere } from "@/lib/passkeys/browser-errors";
import type { PasskeySummary } from "@/lib/passkeys/service";

type PasskeyRow = Json<PasskeySummary>;

/**
 * The user's passkeys: added through the browser's WebAuthn ceremony, removed after a confirmation.
 * `publicUrl` (PUBLIC_URL) lets a failure name the address passkeys work at.
 */
export function PasskeysPanel({ publicUrl }: { publicUrl: string }) {
  const passkeys = useResource<{ passkeys: PasskeyRow[] }>("/api/passkeys");
  const [status, setStatus] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const label = String(new FormData(form).get("passkeyLabel") ?? "").trim() || "Passkey";
    setBusy(true);
    setError("");
    setStatus("");
    try {
      const { options, challenge } = await api<{
        options: Parameters<typeof startRegistration>[0]["optionsJSON"];
        challenge: string;
      }>("/api/passkey/register/options", { method: "POST" });
      const credential = await startRegistration({ optionsJSON: options });
      await api("/api/passkey/register/verify", { json: { credential, challenge, label } });
      form.reset();
      setStatus(`Passkey "${label}" added.`);
      await passkeys.reload();
    } catch (err) {
      setError(err instanceof ApiError ? messageOf(err) : passkeyErrorHere(err, "add", publicUrl));
    } finally {
      setBusy(false);
    }
  }

  async function remove(passkey: PasskeyRow) {
    setError("");
    setStatus("");
    try {
      await api(`/api/passkeys/${encodeURIComponent(passkey.id)}`, { method: "DELETE" });
      setStatus(`Passkey "${passkey.label}" removed.`);
      await passkeys.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  return (
    <Card
      title="Passkeys"
      testId="passkeys-card"
      description="Sign in with your device's screen lock or a security key instead of a password."
    >
      {passkeys.loading ? <p className="muted">Loading…</p> : null}
      {passkeys.data ? (
        <DataTable
          caption="Your passkeys"
          captionHidden
          testId="passkeys"
          rows={passkeys.data.passkeys}
          rowKey={(p) => p.id}
          empty={<EmptyState title="No passkeys yet">Add one to sign in without a password.</EmptyState>}
          columns={[
            { header: "Name", cell: (p) => <strong>{p.label}</strong> },
            { header: "Added", cell: (p) => <DateTime value={p.createdAt} style="date" /> },
            {
              header: "Last used",
              hideOnNarrow: true,
              cell: (p) => (p.lastUsedAt ? <DateTime value={p.lastUsedAt} /> : "never"),
            },
            {
              header: "Actions",
              align: "end",
              cell: (p) => (
                <ConfirmButton
                  size="sm"
                  aria-label={`Remove passkey ${p.label}`}
                  question={`Remove "${p.label}"? It can no longer sign you in.`}
                  confirmLabel="Remove passkey"
                  onConfirm={() => remove(p)}
                >
                  Remove
                </ConfirmButton>
              ),
            },
          ]}
        />
      ) : null}
      <Notice>{status}</Notice>
      <form method="post" onSubmit={add} className="inline" aria-label="Add a passkey">
        <Field label="Passkey name" name="passkeyLabel" placeholder="Passkey" maxLength={64} />
        <Button type="submit" busy={busy} busyLabel="Adding…">
          Add passkey
        </Button>
      </form>
      <Alert message={error || (passkeys.error ? messageOf(passkeys.error) : "")} />
    </Card>
  );
}
