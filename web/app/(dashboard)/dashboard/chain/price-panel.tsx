"use client";

import { messageOf, useResource } from "@/components/data";
import { Alert, Card } from "@/components/ui";
import type { L1Price } from "@/lib/chain/inputs";
import { formatCompactUsd, formatPercent, formatUsd } from "./format";

/** The L1 coin's market figures (the server caches them 60 s). */
export function PricePanel() {
  const price = useResource<L1Price>("/api/l1/price");
  return (
    <Card
      title="SOL price"
      description="From the market data provider, refreshed at most once a minute."
      testId="l1-price"
    >
      {price.loading ? <p className="muted">Loading…</p> : null}
      {price.data ? (
        <dl className="facts">
          <div>
            <dt>Price</dt>
            <dd data-testid="l1-price-value">{formatUsd(price.data.price)}</dd>
          </div>
          <div>
            <dt>24 h change</dt>
            <dd>{formatPercent(price.data.change24h)}</dd>
          </div>
          <div>
            <dt>Market cap</dt>
            <dd>{formatCompactUsd(price.data.marketCap)}</dd>
          </div>
          <div>
            <dt>24 h volume</dt>
            <dd>{formatCompactUsd(price.data.volume24h)}</dd>
          </div>
        </dl>
      ) : null}
      <Alert message={price.error ? messageOf(price.error) : ""} />
    </Card>
  );
}
