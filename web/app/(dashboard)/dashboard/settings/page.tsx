import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { webContext } from "@/lib/infra/context";
import { AccountSettings } from "./account-settings";
import { ApiKeysPanel } from "./api-keys-panel";
import { DeleteAccountPanel } from "./delete-account-panel";
import { PasskeysPanel } from "./passkeys-panel";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  return (
    <>
      <PageHeader
        title="Settings"
        description="Your account (name, email, password), referral code, passkeys, API keys, and deleting the account."
      />
      <AccountSettings emailChanged={params.emailChanged === "1"} />
      <PasskeysPanel publicUrl={webContext().config.PUBLIC_URL} />
      <ApiKeysPanel />
      <DeleteAccountPanel />
    </>
  );
}
