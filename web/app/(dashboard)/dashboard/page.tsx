import type { Metadata } from "next";
import { pageSetupStatus } from "../setup-status";
import { Overview } from "./overview";

export const metadata: Metadata = { title: "Overview" };

export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  return <Overview justVerified={params.verified === "1"} setup={await pageSetupStatus()} />;
}
