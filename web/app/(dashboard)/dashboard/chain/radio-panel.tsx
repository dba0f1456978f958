"use client";

import { type FormEvent, useState } from "react";
import { api, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, Field, Notice, StatusBadge } from "@/components/ui";
import type { DjStats } from "@/lib/radio/inputs";

/** The radio wallet the user links, and that wallet's DJ profile and stats. */
export function RadioPanel() {
  const linked = useResource<{ wallet: string | null }>("/api/user/radio-wallet");
  const stats = useResource<DjStats>("/api/radio/dj-stats");
  const [fieldError, setFieldError] = useState("");
  const [status, setStatus] = useState("");

  async function save(wallet: string | null) {
    setFieldError("");
    setStatus("");
    try {
      const saved = await api<{ wallet: string | null }>("/api/user/radio-wallet", {
        method: "PATCH",
        json: { wallet },
      });
      setStatus(saved.wallet ? `Linked ${saved.wallet}.` : "Radio wallet unlinked.");
      await Promise.all([linked.reload(), stats.reload()]);
    } catch (err) {
      setFieldError(messageOf(err));
    }
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void save(String(new FormData(event.currentTarget).get("radioWallet") ?? "").trim());
  }

  const data = stats.data;
  return (
    <Card
      title="Radio identity"
      description="Link the wallet you DJ with on the radio service."
      testId="radio"
    >
      <p>
        Linked wallet:{" "}
        <code data-testid="radio-wallet" style={{ overflowWrap: "anywhere" }}>
          {linked.data?.wallet ?? "none"}
        </code>
      </p>
      <form method="post" onSubmit={submit} className="inline" aria-label="Link a radio wallet">
        <Field
          label="Radio wallet (0x…)"
          name="radioWallet"
          required
          pattern="^0x[0-9a-fA-F]{40}$"
          error={fieldError}
        />
        <Button type="submit">Link wallet</Button>
        {linked.data?.wallet ? (
          <Button type="button" variant="secondary" onClick={() => save(null)}>
            Unlink
          </Button>
        ) : null}
      </form>
      <Notice tone="success">
        {status ? <span style={{ overflowWrap: "anywhere" }}>{status}</span> : ""}
      </Notice>
      {data?.linked && data.error ? <Alert message={`DJ stats unavailable: ${data.error}`} /> : null}
      {data?.linked && !data.error && !data.dj ? (
        <p className="muted" data-testid="dj-unknown">
          The radio service knows no DJ with this wallet.
        </p>
      ) : null}
      {data?.linked && data.dj && data.stats ? (
        <dl className="facts" data-testid="dj-stats">
          <div>
            <dt>DJ</dt>
            <dd>
              {data.dj.name} {data.stats.isLive ? <StatusBadge status="ok">live now</StatusBadge> : null}
            </dd>
          </div>
          <div>
            <dt>Followers</dt>
            <dd>{data.dj.followers}</dd>
          </div>
          <div>
            <dt>Shows</dt>
            <dd>{data.stats.totalShows}</dd>
          </div>
          <div>
            <dt>Listeners</dt>
            <dd>{data.stats.totalListeners}</dd>
          </div>
          <div>
            <dt>Tips</dt>
            <dd data-testid="dj-tips">{data.stats.totalTipsUsdc.toFixed(2)} USDC</dd>
          </div>
          <div>
            <dt>Genres</dt>
            <dd>{data.dj.genres.join(", ") || "—"}</dd>
          </div>
        </dl>
      ) : null}
      <Alert message={linked.error ? messageOf(linked.error) : ""} />
    </Card>
  );
}
