"use client";

import { api, useResource } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Alert, Button, Card, Field, StatusBadge } from "@/components/ui";
import type { DjStats } from "@/lib/radio/inputs";

/** The radio wallet the user links, and that wallet's DJ profile and stats. */
export function RadioPanel() {
  const linked = useResource<{ wallet: string | null }>("/api/user/radio-wallet");
  const stats = useResource<DjStats>("/api/radio/dj-stats");
  // Every refusal is about the wallet.
  const action = useAction({ fields: () => "radioWallet" });

  async function save(wallet: string | null) {
    const saved = await api<{ wallet: string | null }>("/api/user/radio-wallet", {
      method: "PATCH",
      json: { wallet },
    });
    await Promise.all([linked.reload(), stats.reload()]);
    return saved.wallet ? `Linked ${saved.wallet}.` : "Radio wallet unlinked.";
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
      <ActionForm
        action={action}
        label="Link a radio wallet"
        onSubmit={(data) => save(String(data.get("radioWallet") ?? "").trim())}
        className="inline"
        submit="Link wallet"
        buttons={
          linked.data?.wallet ? (
            <Button type="button" variant="secondary" onClick={() => action.run(() => save(null), "unlink")}>
              Unlink
            </Button>
          ) : null
        }
        breakAnywhere
        loadError={linked.error}
      >
        <Field
          label="Radio wallet (0x…)"
          name="radioWallet"
          required
          pattern="^0x[0-9a-fA-F]{40}$"
          error={action.fieldErrors.radioWallet}
        />
      </ActionForm>
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
    </Card>
  );
}
