import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { webContext } from "@/lib/context";
import { mppConfigured } from "@/lib/gateway/billing/mpp";
import { BillingPanels } from "./billing-panels";
import { GatewayUsage } from "./gateway-usage";

export const metadata: Metadata = { title: "Billing" };

export default function BillingPage() {
  const { config } = webContext();
  const origin = config.PUBLIC_URL.replace(/\/+$/, "");
  return (
    <>
      <PageHeader
        title="Billing"
        description="Card credit for the v1 gateway, its plugin prices, and how programs pay per call."
      />
      <BillingPanels />
      <GatewayUsage origin={origin} mpp={mppConfigured(config)} />
    </>
  );
}
