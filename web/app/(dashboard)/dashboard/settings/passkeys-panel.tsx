"use client";

import { startRegistration } from "@simplewebauthn/browser";
import { api, type Json, useResource } from "@/components/data";
import { ActionForm, FormError, useAction } from "@/components/forms";
import { Card, ConfirmButton, DataTable, DateTime, EmptyState, Field } from "@/components/ui";
import { passkeyErrorHere } from "@/lib/passkeys/browser-errors";
import type { PasskeySummary } from "@/lib/passkeys/service";

type PasskeyRow = Json<PasskeySummary>;

/**
 * The user's passkeys: added through the browser's WebAuthn ceremony, removed after a confirmation.
 * `publicUrl` (PUBLIC_URL) lets a failure name the address passkeys work at.
 */
export function PasskeysPanel({ publicUrl }: { publicUrl: string }) {
  const passkeys = useResource<{ passkeys: PasskeyRow[] }>("/api/passkeys");
  const action = useAction();

  async function add(data: FormData, form: HTMLFormElement) {
    const label = String(data.get("passkeyLabel") ?? "").trim() || "Passkey";
    const { options, challenge } = await api<{
      options: Parameters<typeof startRegistration>[0]["optionsJSON"];
      challenge: string;
    }>("/api/passkey/register/options", { method: "POST" });
    // What the browser's ceremony refuses is said in words, with the address passkeys work at.
    const credential = await startRegistration({ optionsJSON: options }).catch((err: unknown) => {
      throw new FormError(passkeyErrorHere(err, "add", publicUrl));
    });
    await api("/api/passkey/register/verify", { json: { credential, challenge, label } });
    form.reset();
    await passkeys.reload();
    return `Passkey "${label}" added.`;
  }

  const remove = (passkey: PasskeyRow) =>
    action.run(async () => {
      await api(`/api/passkeys/${encodeURIComponent(passkey.id)}`, { method: "DELETE" });
      await passkeys.reload();
      return `Passkey "${passkey.label}" removed.`;
    }, passkey.id);

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
      <ActionForm
        action={action}
        label="Add a passkey"
        onSubmit={add}
        className="inline"
        submit="Add passkey"
        busyLabel="Adding…"
        tone="info"
        loadError={passkeys.error}
      >
        <Field label="Passkey name" name="passkeyLabel" placeholder="Passkey" maxLength={64} />
      </ActionForm>
    </Card>
  );
}
