import type { Metadata } from "next";
import { JobView } from "./job-view";

export const metadata: Metadata = { title: "Job" };

export default async function JobPage({ params }: { params: Promise<{ jobId: string }> }) {
  return <JobView jobId={(await params).jobId} />;
}
