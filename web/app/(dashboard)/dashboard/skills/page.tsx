import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { SkillsPanel } from "./skills-panel";

export const metadata: Metadata = { title: "Skills" };

export default function SkillsPage() {
  return (
    <>
      <PageHeader
        title="Skills"
        description="MCP servers your agent can use: activate one, look at its tools, try a call."
      />
      <SkillsPanel />
    </>
  );
}
