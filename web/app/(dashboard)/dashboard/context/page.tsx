import type { Metadata } from "next";
import { cookies } from "next/headers";
import { Notice, PageHeader } from "@/components/ui";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { ContextPanel } from "./context-panel";

export const metadata: Metadata = { title: "Project context" };

/** Admins only: it writes files on the server (the API refuses others with 403 as well). */
export default async function ContextPage() {
  const session = await findSessionUser(webContext(), (await cookies()).get(SESSION_COOKIE)?.value);
  return (
    <>
      <PageHeader
        title="Project context"
        description="AGENTS.md files that tell coding agents what each directory of this platform holds."
      />
      {session?.isAdmin ? (
        <ContextPanel />
      ) : (
        <Notice tone="warning" testId="context-admin-only">
          Only administrators can generate project context files.
        </Notice>
      )}
    </>
  );
}
