"use client";

import { startRegistration } from "@simplewebauthn/browser";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "@/components/alert";
import { api, messageOf } from "@/components/api";
import { Field } from "@/components/field";
import { RowButton } from "@/components/row-button";
import { useList } from "@/components/use-list";

interface PasskeyRow {
  id: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function PasskeysPanel() {
  const {
    items: passkeys,
    reload: load,
    remove,
    error,
    setError,
  } = useList<PasskeyRow>("/api/passkeys", "passkeys");
  const [status, setStatus] = useState("");
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
      await load();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      {passkeys.length === 0 ? <p>No passkeys yet.</p> : null}
      <ul className="rows" data-testid="passkeys">
        {passkeys.map((p) => (
          <li key={p.id}>
            <span>
              <strong>{p.label}</strong> · added {new Date(p.createdAt).toLocaleDateString()}
              {p.lastUsedAt ? ` · last used ${new Date(p.lastUsedAt).toLocaleString()}` : ""}
            </span>
            <RowButton
              label={`Remove passkey ${p.label}`}
              onClick={() => remove(p.id, () => setStatus("Passkey removed."))}
            >
              Remove
            </RowButton>
          </li>
        ))}
      </ul>
      <form onSubmit={add} className="inline" aria-label="Add a passkey">
        <Field label="Passkey name" name="passkeyLabel" placeholder="Passkey" maxLength={64} />
        <button type="submit" disabled={busy}>
          Add passkey
        </button>
      </form>
      {status ? (
        <p role="status" className="notice">
          {status}
        </p>
      ) : null}
      <ErrorAlert message={error} />
    </section>
  );
}
