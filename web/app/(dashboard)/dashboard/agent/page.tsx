import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { AgentPanel } from "./agent-panel";

export const metadata: Metadata = { title: "Agent" };

export default function AgentPage() {
  return (
    <>
      <PageHeader title="Agent" description="Your AI agent: its deployment, health and controls." />
      <AgentPanel />
    </>
  );
}
