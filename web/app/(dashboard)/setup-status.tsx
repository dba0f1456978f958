import { cookies } from "next/headers";
import Link from "next/link";
import type { ReactNode } from "react";
import { Notice } from "@/components/ui";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import type { CapabilityId, SetupStatus } from "@/lib/setup/inputs";
import { setupStatusOf } from "@/lib/setup/service";

/** The setup status for the signed-in user of this page (the layout has checked the session). */
export async function pageSetupStatus(): Promise<SetupStatus> {
  const ctx = webContext();
  const session = await findSessionUser(ctx, (await cookies()).get(SESSION_COOKIE)?.value);
  return setupStatusOf(ctx, { isAdmin: session?.isAdmin ?? false });
}

/**
 * Said up front on a page whose feature is off on this server: what does not work (the page's words), and
 * for an admin what to set, with the way to the checklist. Nothing when the capability is available.
 */
export function FeatureUnavailable({
  status,
  capability,
  children,
}: {
  status: SetupStatus;
  capability: CapabilityId;
  children: ReactNode;
}) {
  if (status.available[capability]) return null;
  const detail = status.capabilities?.find((c) => c.id === capability);
  return (
    <Notice tone="warning" testId={`unavailable-${capability}`}>
      <p>{children}</p>
      {detail?.action ? (
        <p>
          {detail.action} <Link href="/dashboard#setup">See the setup checklist</Link>.
        </p>
      ) : null}
    </Notice>
  );
}
