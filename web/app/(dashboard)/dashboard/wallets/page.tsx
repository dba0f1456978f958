import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { PageHeader } from "@/components/ui";
import { agentChoicesOf } from "@/lib/agents/choices";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { WalletsView } from "./wallets-view";

export const metadata: Metadata = { title: "Wallets" };
export const dynamic = "force-dynamic";

/** The user's agents are read here, on the server, for the wallet forms' agent choice. */
export default async function WalletsPage() {
  const ctx = webContext();
  const session = await findSessionUser(ctx, (await cookies()).get(SESSION_COOKIE)?.value);
  if (!session) redirect("/login");
  const owned = await agentChoicesOf(ctx.db, session.id);
  return (
    <>
      <PageHeader
        title="Wallets"
        description="Your agents' wallets: they pay HTTP 402 services (x402, MPP) within the platform's spending policy."
      />
      <WalletsView agents={owned} />
    </>
  );
}
