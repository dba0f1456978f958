import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { PersonaPanel } from "./persona-panel";

export const metadata: Metadata = { title: "Persona" };

export default function PersonaPage() {
  return (
    <>
      <PageHeader
        title="Persona"
        description="How well your agent stays in character: scores per dimension, the trend, and drift."
      />
      <PersonaPanel />
    </>
  );
}
