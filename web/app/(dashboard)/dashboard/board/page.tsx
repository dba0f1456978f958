import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { BoardDashboard } from "./board-dashboard";

export const metadata: Metadata = { title: "Job board" };

export default function BoardPage() {
  return (
    <>
      <PageHeader
        title="Job board"
        description="Browse and apply to jobs, advertise your company's listings, let your agents claim work, and post updates."
      />
      <BoardDashboard />
    </>
  );
}
