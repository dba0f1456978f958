"use client";

import { type FormEvent, useState } from "react";
import { ErrorAlert } from "@/components/alert";
import { api, fieldOf, messageOf } from "@/components/api";
import { Field } from "@/components/field";
import { RowButton } from "@/components/row-button";
import { useList } from "@/components/use-list";

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export function ApiKeysPanel() {
  const { items: keys, reload: load, remove, error, setError } = useList<KeyRow>("/api/keys", "keys");
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [nameError, setNameError] = useState("");

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("keyName") ?? "");
    setNameError("");
    setError("");
    try {
      const key = await api<{ name: string; key: string }>("/api/keys", { json: { name } });
      setCreated({ name: key.name, key: key.key });
      form.reset();
      await load();
    } catch (err) {
      const message = messageOf(err);
      if (fieldOf(message, ["name"])) setNameError(message);
      else setError(message);
    }
  }

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p>
        Programs use a key as <code>Authorization: Bearer svc_…</code>. Up to 10 keys.
      </p>
      {keys.length === 0 ? <p>No API keys yet.</p> : null}
      <ul className="rows" data-testid="api-keys">
        {keys.map((k) => (
          <li key={k.id}>
            <span>
              <strong>{k.name}</strong> · <code>{k.prefix}…</code> · created{" "}
              {new Date(k.createdAt).toLocaleDateString()}
              {k.lastUsedAt ? ` · last used ${new Date(k.lastUsedAt).toLocaleString()}` : " · never used"}
            </span>
            <RowButton label={`Delete API key ${k.name}`} onClick={() => remove(k.id)}>
              Delete
            </RowButton>
          </li>
        ))}
      </ul>
      {created ? (
        <div className="notice" role="status">
          <p>
            Key <strong>{created.name}</strong> created. Copy it now; it is not shown again:
          </p>
          <p>
            <code data-testid="new-api-key">{created.key}</code>
          </p>
        </div>
      ) : null}
      <form onSubmit={create} className="inline" aria-label="Create an API key">
        <Field label="Key name" name="keyName" required maxLength={64} error={nameError} />
        <button type="submit">Create key</button>
      </form>
      <ErrorAlert message={error} />
    </section>
  );
}
