import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { AgentView } from "./agent-view";

export const metadata: Metadata = { title: "Agent" };

export default function AgentPage() {
  return (
    <>
      <PageHeader
        title="Agent"
        description="Your AI agent: deployment, health, resources, logs, heartbeat and maintenance."
      />
      <AgentView />
    </>
  );
}
