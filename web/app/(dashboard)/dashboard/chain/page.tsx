import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { PricePanel } from "./price-panel";
import { RadioPanel } from "./radio-panel";
import { RpcConfigPanel } from "./rpc-config-panel";
import { VerifyPanel } from "./verify-panel";
import { WalletLookupPanel } from "./wallet-lookup-panel";

export const metadata: Metadata = { title: "Chain" };

export default function ChainPage() {
  return (
    <>
      <PageHeader
        title="Chain"
        description="The L1 price, wallet lookups, platform token tiers, your RPC endpoint and your radio identity."
      />
      <div className="grid">
        <PricePanel />
        <RpcConfigPanel />
      </div>
      <WalletLookupPanel />
      <VerifyPanel />
      <RadioPanel />
    </>
  );
}
