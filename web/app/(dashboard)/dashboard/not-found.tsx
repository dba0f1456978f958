import type { Metadata } from "next";
import Link from "next/link";
import { EmptyState, PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Page not found" };

/** A dashboard address with no page (or a record that is not the user's): said in the shell, with a way back. */
export default function DashboardNotFound() {
  return (
    <>
      <PageHeader title="Page not found" description="There is no dashboard page at this address." />
      <EmptyState
        title="Nothing here"
        action={
          <Link className="btn btn-primary" href="/dashboard" data-testid="not-found-back">
            Back to the overview
          </Link>
        }
      >
        The link may be mistyped or out of date. The navigation lists every page.
      </EmptyState>
    </>
  );
}
