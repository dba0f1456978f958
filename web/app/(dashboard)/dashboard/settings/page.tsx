import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { webContext } from "@/lib/context";
import { AccountPanels } from "./account-panel";
import { ApiKeysPanel } from "./api-keys-panel";
import { PasskeysPanel } from "./passkeys-panel";

export const metadata: Metadata = { title: "Settings" };

export default function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" description="Your account, referral code, passkeys and API keys." />
      <div className="grid">
        <AccountPanels />
      </div>
      <PasskeysPanel publicUrl={webContext().config.PUBLIC_URL} />
      <ApiKeysPanel />
    </>
  );
}
