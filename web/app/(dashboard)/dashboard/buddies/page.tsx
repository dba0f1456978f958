import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { BuddiesPanel } from "./buddies-panel";

export const metadata: Metadata = { title: "Buddies" };

export default function BuddiesPage() {
  return (
    <>
      <PageHeader
        title="Buddies"
        description="Virtual pets: hatch up to 20, feed, play with and train them."
      />
      <BuddiesPanel />
    </>
  );
}
