import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { mppConfigured } from "@/lib/gateway/billing/mpp";
import { webContext } from "@/lib/infra/context";
import { FeatureUnavailable, pageSetupStatus } from "../../setup-status";
import { BillingPanels } from "./billing-panels";
import { GatewayUsage } from "./gateway-usage";

export const metadata: Metadata = { title: "Billing" };

export default async function BillingPage() {
  const { config } = webContext();
  const setup = await pageSetupStatus();
  const origin = config.PUBLIC_URL.replace(/\/+$/, "");
  return (
    <>
      <PageHeader
        title="Billing"
        description="Card credit for the v1 gateway, its plugin prices, and how programs pay per call."
      />
      <BillingPanels
        cardUnavailable={
          <FeatureUnavailable status={setup} capability="card_payments">
            Buying card credit is not available on this server: card payments are not set up.
          </FeatureUnavailable>
        }
      />
      <GatewayUsage origin={origin} mpp={mppConfigured(config)} />
    </>
  );
}
