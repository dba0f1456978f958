import { agents, files, permissionRequests, platformJobs, users } from "@svc/db/schema";
import { and, eq, inArray } from "drizzle-orm";
import { retireAdvertiser } from "../board/retire";
import { filesDeps } from "../files/service";
import type { WebContext } from "../infra/context";
import { answerJson, type BackendUser, callBackend } from "../runtime/backend-client";
import { LIFECYCLE_TIMEOUT_MS } from "../runtime/operations";
import { agentRemovalFailed, deletionNotConfirmed, deployInProgress } from "./errors";
import type { DeleteAccountInput } from "./inputs";
import { mailAccountDeleted, mailQuietly } from "./mails";
import { checkAccountPassword, loadAccount } from "./password";
import { normalizeEmail } from "./users";

/** The jobs that create or redeploy an agent: while one runs, the agent it works on may not exist yet. */
const RUNTIME_JOB_TYPES = ["provision_managed_runtime", "runtime_sync", "retry_repair"] as const;

export interface DeletedAccount {
  deleted: true;
  /** Agents removed from the hosting platform (their services) and from the platform. */
  agents: number;
  files: number;
}

/**
 * `DELETE /api/account` (issue 26 item 7), confirmed with the password (or the email typed out). In this
 * order, so a failure leaves an account the person can still sign in to and try again: queued jobs go (a
 * running deploy or repair is a 409: its agent could appear after the next step); each agent is
 * deprovisioned by the backend, then its files' bytes removed (a failure is a 502 naming the agent); one
 * transaction retires the board records (../board/retire.ts), deletes the jobs and permission requests (no
 * foreign keys) and the account row, whose foreign keys take the rest; a last mail.
 */
export async function deleteAccount(
  ctx: WebContext,
  session: { userId: string; user: BackendUser },
  input: DeleteAccountInput,
): Promise<DeletedAccount> {
  const user = await loadAccount(ctx, session.userId);
  if (user.passwordHash) {
    if (!input.password) throw deletionNotConfirmed(true);
    await checkAccountPassword(ctx, user, input.password, "password");
  } else if (normalizeEmail(input.confirm ?? "") !== user.email) {
    throw deletionNotConfirmed(false);
  }

  const ownJobs = and(
    eq(platformJobs.userId, user.id),
    inArray(platformJobs.jobType, [...RUNTIME_JOB_TYPES]),
  );
  await ctx.db
    .delete(platformJobs)
    .where(and(eq(platformJobs.userId, user.id), eq(platformJobs.status, "queued")));
  const [running] = await ctx.db
    .select({ id: platformJobs.id })
    .from(platformJobs)
    .where(and(ownJobs, eq(platformJobs.status, "running")))
    .limit(1);
  if (running) throw deployInProgress();

  const { storage } = filesDeps(ctx);
  const ownAgents = await ctx.db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(eq(agents.userId, user.id));
  let fileCount = 0;
  for (const agent of ownAgents) {
    const stored = await ctx.db
      .select({ path: files.storagePath })
      .from(files)
      .where(and(eq(files.userId, user.id), eq(files.agentId, agent.id)));
    // The agent's row takes its files' rows with it; their bytes go once it is gone.
    await deprovisionAgent(ctx, session.user, agent);
    for (const { path } of stored) {
      await storage
        .remove(path)
        .catch((err: unknown) =>
          ctx.logger.error({ err, userId: user.id }, "a deleted account's file bytes were not removed"),
        );
    }
    fileCount += stored.length;
  }

  await ctx.db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, user.id)).for("update");
    const [deployed] = await tx
      .select({ id: agents.id })
      .from(agents)
      .where(eq(agents.userId, user.id))
      .limit(1);
    if (deployed) throw deployInProgress();
    await retireAdvertiser(tx, user.id, ctx.clock.now());
    await tx.delete(platformJobs).where(eq(platformJobs.userId, user.id));
    await tx.delete(permissionRequests).where(eq(permissionRequests.userId, user.id));
    await tx.delete(users).where(eq(users.id, user.id));
  });
  ctx.logger.info({ userId: user.id, agents: ownAgents.length, files: fileCount }, "account deleted");
  await mailQuietly(ctx, "account deletion notice", () => mailAccountDeleted(ctx, user));
  return { deleted: true, agents: ownAgents.length, files: fileCount };
}

/** Asks the backend to deprovision one agent; 502 naming it when the backend or the platform fails. */
async function deprovisionAgent(
  ctx: WebContext,
  user: BackendUser,
  agent: { id: string; name: string },
): Promise<void> {
  let answer: Awaited<ReturnType<typeof callBackend>>;
  try {
    answer = await callBackend(ctx.config, {
      method: "POST",
      path: `/api/agents/${encodeURIComponent(agent.id)}/deprovision`,
      user,
      timeoutMs: LIFECYCLE_TIMEOUT_MS,
    });
  } catch (err) {
    throw agentRemovalFailed(agent.name, err instanceof Error ? err.message : String(err));
  }
  if (answer.status >= 400) {
    // Deleted meanwhile (the backend then knows no such agent): nothing left to remove.
    const [left] = await ctx.db.select({ id: agents.id }).from(agents).where(eq(agents.id, agent.id));
    if (!left) return;
    const body = answerJson(answer) as { message?: unknown; error?: unknown } | undefined;
    const reason = typeof body?.message === "string" ? body.message : `the backend answered ${answer.status}`;
    throw agentRemovalFailed(agent.name, reason);
  }
}
