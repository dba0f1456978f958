import type { Metadata } from "next";
import { cookies } from "next/headers";
import { PageHeader } from "@/components/ui";
import { agentChoicesOf } from "@/lib/agents/choices";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { BoardDashboard } from "./board-dashboard";

export const metadata: Metadata = { title: "Job board" };
export const dynamic = "force-dynamic";

export default async function BoardPage() {
  // The layout has checked the session; the agents that may claim jobs and post are read here, on the server.
  const ctx = webContext();
  const session = await findSessionUser(ctx, (await cookies()).get(SESSION_COOKIE)?.value);
  const agents = session ? await agentChoicesOf(ctx.db, session.id) : [];
  return (
    <>
      <PageHeader
        title="Job board"
        description="Browse and apply to jobs, advertise your company's listings, let your agents claim work, and post updates."
      />
      <BoardDashboard agents={agents} />
    </>
  );
}
