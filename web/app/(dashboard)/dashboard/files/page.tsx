import type { Metadata } from "next";
import { cookies } from "next/headers";
import { PageHeader } from "@/components/ui";
import { agentChoicesOf } from "@/lib/agents/choices";
import { webContext } from "@/lib/infra/context";
import { findSessionUser, SESSION_COOKIE } from "@/lib/sessions/service";
import { FilesPanel } from "./files-panel";

export const metadata: Metadata = { title: "Files" };
export const dynamic = "force-dynamic";

export default async function FilesPage() {
  // The layout has checked the session; the agents to upload to are read here, on the server.
  const ctx = webContext();
  const session = await findSessionUser(ctx, (await cookies()).get(SESSION_COOKIE)?.value);
  const agents = session ? await agentChoicesOf(ctx.db, session.id) : [];
  return (
    <>
      <PageHeader
        title="Files"
        description="Files you attach to your agents: upload, download and delete them."
      />
      <FilesPanel agents={agents} />
    </>
  );
}
