import type { Metadata } from "next";
import { cookies } from "next/headers";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, hasVisitedBefore, SESSION_COOKIE } from "@/lib/sessions/service";
import { pageSetupStatus } from "../setup-status";
import { Overview } from "./overview";

export const metadata: Metadata = { title: "Overview" };

export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[]>>;
}) {
  const params = await searchParams;
  // The layout has checked the session; a first visit is welcomed, a later one welcomed back.
  const ctx = webContext();
  const token = (await cookies()).get(SESSION_COOKIE)?.value ?? "";
  const session = await findSessionUser(ctx, token);
  const returning = session ? await hasVisitedBefore(ctx, session.id, token) : false;
  return (
    <Overview justVerified={params.verified === "1"} returning={returning} setup={await pageSetupStatus()} />
  );
}
