import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { FeatureUnavailable, pageSetupStatus } from "../../setup-status";
import { PersonaPanel } from "./persona-panel";

export const metadata: Metadata = { title: "Persona" };

export default async function PersonaPage() {
  const setup = await pageSetupStatus();
  return (
    <>
      <PageHeader
        title="Persona"
        description="How well your agent stays in character: scores per dimension, the trend, and drift."
      />
      <FeatureUnavailable status={setup} capability="ai_provider">
        Persona evaluations cannot run on this server: it has no AI provider set up yet, so your agent cannot
        answer the probes.
      </FeatureUnavailable>
      <PersonaPanel runDisabled={!setup.available.ai_provider} />
    </>
  );
}
