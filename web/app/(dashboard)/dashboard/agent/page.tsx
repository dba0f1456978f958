import type { Metadata } from "next";
import { cookies } from "next/headers";
import { PageHeader } from "@/components/ui";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { AgentView } from "./agent-view";

export const metadata: Metadata = { title: "Agent" };

export const dynamic = "force-dynamic";

export default async function AgentPage() {
  // The layout has checked the session; the account's name is the agent's default name.
  const session = await findSessionUser(webContext(), (await cookies()).get(SESSION_COOKIE)?.value);
  return (
    <>
      <PageHeader
        title="Agent"
        description="Your AI agent: deployment, health, resources, logs, heartbeat and maintenance."
      />
      <AgentView accountName={session?.name ?? ""} />
    </>
  );
}
