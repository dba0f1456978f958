import type { Metadata } from "next";
import { cookies } from "next/headers";
import { PageHeader } from "@/components/ui";
import { agentChoicesOf } from "@/lib/agents/choices";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { FeatureUnavailable, pageSetupStatus } from "../../setup-status";
import { TasksPanel } from "./tasks-panel";

export const metadata: Metadata = { title: "Scheduled tasks" };

/** The layout has checked the session; the page lists the user's agents for the form and the filter. */
export default async function TasksPage() {
  const ctx = webContext();
  const session = await findSessionUser(ctx, (await cookies()).get(SESSION_COOKIE)?.value);
  const agents = session ? await agentChoicesOf(ctx.db, session.id) : [];
  const setup = await pageSetupStatus();
  return (
    <>
      <PageHeader
        title="Scheduled tasks"
        description="Prompts sent to your agents on a cron schedule (schedules in UTC; run times in your time zone)."
      />
      <FeatureUnavailable status={setup} capability="ai_provider">
        Scheduled tasks cannot be created on this server: it has no AI provider set up yet, so your agent
        could not answer their prompts.
      </FeatureUnavailable>
      <TasksPanel agents={agents} createDisabled={!setup.available.ai_provider} />
    </>
  );
}
