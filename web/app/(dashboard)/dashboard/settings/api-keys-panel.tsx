"use client";

import { API_AREAS, type ApiScope } from "@svc/common/api-scopes";
import { useState } from "react";
import { api, useResource } from "@/components/data";
import { ActionForm, FormError, useAction } from "@/components/forms";
import {
  Button,
  Card,
  ConfirmButton,
  DataTable,
  DateTime,
  EmptyState,
  Field,
  formatDate,
  Notice,
  SelectField,
  StatusBadge,
} from "@/components/ui";
import { API_AREA_LABELS, describeScopes } from "@/lib/apikeys/scopes";
import type { ApiKeySummary, CreatedApiKey } from "@/lib/apikeys/service";
import styles from "./api-keys.module.css";

/** The lifetimes the form offers, in days; "" is a key that does not expire. */
const EXPIRY_CHOICES = [
  ["7", "7 days"],
  ["30", "30 days"],
  ["90", "90 days"],
  ["365", "1 year"],
  ["", "Never"],
] as const;

/** The scopes the form's fields ask for: everything, or each area's chosen access. */
function scopesOf(data: FormData): ApiScope[] {
  if (data.get("keyAccess") === "all") return ["all"];
  return API_AREAS.flatMap((area): ApiScope[] => {
    const access = data.get(`scope-${area}`);
    return access === "read" || access === "write" ? [`${area}:${access}`] : [];
  });
}

function expiryOf(key: ApiKeySummary) {
  if (key.expiresAt === null) return "Never";
  const date = formatDate(key.expiresAt, { style: "date" });
  return key.expired ? (
    <>
      <StatusBadge status="expired" tone="bad">
        Expired
      </StatusBadge>{" "}
      <span className="muted">{date}</span>
    </>
  ) : (
    date
  );
}

/**
 * The user's API keys: listed by prefix with what each reaches and when it expires; created with its scopes
 * and lifetime (the raw key shown once, with a copy button); deleted after a confirmation.
 */
export function ApiKeysPanel() {
  const keys = useResource<{ keys: ApiKeySummary[] }>("/api/keys");
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [copied, setCopied] = useState("");
  const [everything, setEverything] = useState(false);
  const action = useAction<"name" | "scopes">({ fields: ["name"] });

  async function create(data: FormData, form: HTMLFormElement) {
    const scopes = scopesOf(data);
    const days = String(data.get("keyExpiry") ?? "");
    setCopied("");
    if (scopes.length === 0)
      throw new FormError(
        "Choose what the key can reach: everything, or read or write for at least one area.",
        "scopes",
      );
    const json = {
      name: String(data.get("keyName") ?? ""),
      scopes,
      expiresInDays: days ? Number(days) : null,
    };
    setCreated(await api<CreatedApiKey>("/api/keys", { json }));
    form.reset();
    setEverything(false);
    await keys.reload();
  }

  async function copy(key: string) {
    try {
      await navigator.clipboard.writeText(key);
      setCopied("Copied to the clipboard.");
    } catch {
      setCopied("The browser did not allow copying: select the key and copy it yourself.");
    }
  }

  const remove = (key: ApiKeySummary) =>
    action.run(async () => {
      await api(`/api/keys/${encodeURIComponent(key.id)}`, { method: "DELETE" });
      if (created?.id === key.id) setCreated(null);
      await keys.reload();
      return `API key "${key.name}" deleted.`;
    }, key.id);

  return (
    <Card
      title="API keys"
      testId="api-keys-card"
      description={
        <>
          Programs use a key as <code>Authorization: Bearer svc_…</code>. A key reaches only what you chose
          for it, never your account, API keys, passkeys or password. Up to 10 keys.
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
            {
              header: "Name",
              cell: (k) => (
                <>
                  <strong>{k.name}</strong>
                  {/* On a phone the expiry goes under the name, so the table fits without scrolling. */}
                  <span className={styles.narrowOnly}>
                    {k.expired || k.expiresAt === null ? null : "Expires "}
                    {k.expiresAt === null ? "Never expires" : expiryOf(k)}
                  </span>
                </>
              ),
            },
            { header: "Key", hideOnNarrow: true, cell: (k) => <code>{k.prefix}…</code> },
            { header: "Can reach", cell: (k) => describeScopes(k.scopes) },
            { header: "Expires", hideOnNarrow: true, cell: expiryOf },
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
        <Notice tone="success" testId="new-api-key-notice">
          <p>
            Key <strong>{created.name}</strong> created ({describeScopes(created.scopes)};{" "}
            {created.expiresAt
              ? `expires ${formatDate(created.expiresAt, { style: "date" })}`
              : "never expires"}
            ). Copy it now; it is not shown again:
          </p>
          <div className={styles.newKey}>
            <code className="secret" data-testid="new-api-key">
              {created.key}
            </code>
            <Button size="sm" variant="secondary" onClick={() => copy(created.key)}>
              Copy key
            </Button>
          </div>
          {copied ? <p data-testid="copy-status">{copied}</p> : null}
        </Notice>
      ) : null}
      <ActionForm
        action={action}
        label="Create an API key"
        onSubmit={create}
        className={styles.create}
        submit="Create key"
        busyLabel="Creating…"
        tone="info"
        loadError={keys.error}
      >
        <div className={styles.row}>
          <Field label="Key name" name="keyName" required maxLength={64} error={action.fieldErrors.name} />
          <SelectField label="Expires after" name="keyExpiry" defaultValue="90">
            {EXPIRY_CHOICES.map(([days, label]) => (
              <option key={label} value={days}>
                {label}
              </option>
            ))}
          </SelectField>
        </div>
        <fieldset
          className={styles.scopes}
          aria-describedby={action.fieldErrors.scopes ? "keyScopes-error" : "keyScopes-hint"}
        >
          <legend>What the key can reach</legend>
          <p id="keyScopes-hint" className="hint">
            Read lets the key look; read and write lets it also change, start, send and delete.
          </p>
          <div className={styles.access}>
            <label>
              <input
                type="radio"
                name="keyAccess"
                value="areas"
                checked={!everything}
                onChange={() => setEverything(false)}
              />{" "}
              Only the areas chosen below
            </label>
            <label>
              <input
                type="radio"
                name="keyAccess"
                value="all"
                checked={everything}
                onChange={() => setEverything(true)}
              />{" "}
              Everything (every area, now and later)
            </label>
          </div>
          <div className={styles.areas} hidden={everything}>
            {API_AREAS.map((area) => (
              <SelectField
                key={area}
                label={API_AREA_LABELS[area].label}
                name={`scope-${area}`}
                hint={API_AREA_LABELS[area].reaches}
                defaultValue=""
                disabled={everything}
              >
                <option value="">No access</option>
                <option value="read">Read</option>
                <option value="write">Read and write</option>
              </SelectField>
            ))}
          </div>
          {action.fieldErrors.scopes ? (
            <p id="keyScopes-error" className="error" role="alert">
              {action.fieldErrors.scopes}
            </p>
          ) : null}
        </fieldset>
      </ActionForm>
    </Card>
  );
}
