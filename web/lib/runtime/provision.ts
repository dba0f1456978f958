/**
 * `POST /api/provision`: creates the signed-in user's agent record (one per user: an existing one is
 * re-provisioned) and enqueues its `provision_managed_runtime` job through the backend.
 */
import { newId } from "@svc/common";
import { type Database, schema } from "@svc/db";
import { type PlatformJobJson, toJobJson } from "@svc/db/json";
import { type Agent, agents, platformJobs, users } from "@svc/db/schema";
import { and, desc, eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { userNotFound } from "../accounts/errors";
import type { WebContext } from "../infra/context";
import { withAdvisoryLock } from "../infra/db/advisory-lock";
import { signInFirst } from "../sessions/errors";
import { assertEmailVerified } from "../sessions/require";
import { answerJson, callBackend } from "./backend-client";
import { backendQueueError } from "./errors";
import { MAX_AGENT_NAME_LENGTH, type ProvisionBody } from "./inputs";
import { newestAgentOf } from "./operations";

/** How long the web waits for the backend to accept the job. */
export const PROVISION_ENQUEUE_TIMEOUT_MS = 10_000;
export const DEFAULT_AI_PROVIDER = "openrouter";
export const DEFAULT_AGENT_TYPE = "creative";

/**
 * Who provisions. A session normally names its account (`id`); the admin fallback covers a session
 * without one. This web's sessions always carry an account id (the session row references the user), so the
 * fallback is reachable only for callers that build such a session themselves.
 */
export interface ProvisionSession {
  id?: string | null;
  email: string;
}

export interface ProvisionResult {
  success: true;
  queued: true;
  job: PlatformJobJson;
  agentId: string;
}

type Account = Pick<typeof users.$inferSelect, "id" | "email" | "name" | "plan" | "paymentsSubscriptionId">;

/**
 * The account a provisioning session acts for: its own, by id. Admin fallback: a session
 * without an id whose email is in ADMIN_EMAILS uses a synthetic session for the account holding that email
 * (the session's email; a body email is never used). Otherwise 401; an account that does not exist is 404;
 * one whose email is not confirmed is 403 (REQUIRE_VERIFIED_EMAIL).
 */
export async function provisioningAccount(ctx: WebContext, session: ProvisionSession): Promise<Account> {
  const columns = {
    id: users.id,
    email: users.email,
    name: users.name,
    plan: users.plan,
    paymentsSubscriptionId: users.paymentsSubscriptionId,
    emailVerifiedAt: users.emailVerifiedAt,
  };
  let where: ReturnType<typeof eq>;
  if (session.id) {
    where = eq(users.id, session.id);
  } else {
    const email = session.email.trim().toLowerCase();
    if (!email || !ctx.config.ADMIN_EMAILS.includes(email)) {
      throw signInFirst();
    }
    where = eq(users.email, email);
  }
  const [row] = await ctx.db.select(columns).from(users).where(where).limit(1);
  if (!row) throw userNotFound();
  const { emailVerifiedAt, ...account } = row;
  assertEmailVerified(ctx.config, { emailVerified: emailVerifiedAt !== null });
  return account;
}

/**
 * Creates or re-provisions the account's agent and enqueues its provision job: 202 body. While a provision
 * job of that agent is still queued or running, that job is returned instead of a second one. One user's
 * provisioning runs one at a time across every web process (advisory lock), so a double click cannot
 * create two agents.
 */
export async function provisionAgent(
  ctx: WebContext,
  session: ProvisionSession,
  body: ProvisionBody,
): Promise<ProvisionResult> {
  const account = await provisioningAccount(ctx, session);
  // The statements run on the lock's connection, each committing at once (the backend's worker sees the row).
  return withAdvisoryLock(ctx.db, `provision:${account.id}`, async (client) => {
    const db = drizzle(client, { schema });
    const agent = await saveAgent(db, ctx.clock.now(), account, body);
    const job = (await activeProvisionJob(db, agent)) ?? (await enqueueProvision(ctx, account, agent));
    return { success: true, queued: true, job, agentId: agent.id };
  });
}

/** The account's newest agent, updated with the request's choices and the account's plan; else a new one. */
async function saveAgent(db: Database, now: Date, account: Account, body: ProvisionBody): Promise<Agent> {
  const existing = await newestAgentOf(db, account.id);
  if (existing) {
    const [updated] = await db
      .update(agents)
      .set({
        plan: account.plan,
        ...(body.name ? { name: body.name } : {}),
        ...(body.aiProvider ? { aiProvider: body.aiProvider } : {}),
        ...(body.agentType ? { agentType: body.agentType } : {}),
        updatedAt: now,
      })
      .where(and(eq(agents.id, existing.id), eq(agents.userId, account.id)))
      .returning();
    return updated;
  }
  const [created] = await db
    .insert(agents)
    .values({
      id: newId("agt"),
      userId: account.id,
      name: body.name ?? `${account.name}'s agent`.slice(0, MAX_AGENT_NAME_LENGTH),
      plan: account.plan,
      aiProvider: body.aiProvider ?? DEFAULT_AI_PROVIDER,
      agentType: body.agentType ?? DEFAULT_AGENT_TYPE,
      // hostingProvider keeps its default: the backend's provisioning knows which driver runs the agent.
      status: "pending",
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return created;
}

async function activeProvisionJob(db: Database, agent: Agent): Promise<PlatformJobJson | null> {
  const [job] = await db
    .select()
    .from(platformJobs)
    .where(
      and(
        eq(platformJobs.userId, agent.userId),
        eq(platformJobs.agentId, agent.id),
        eq(platformJobs.jobType, "provision_managed_runtime"),
        inArray(platformJobs.status, ["queued", "running"]),
      ),
    )
    .orderBy(desc(platformJobs.createdAt))
    .limit(1);
  return job ? toJobJson(job) : null;
}

/** `POST {BACKEND_URL}/api/platform-jobs/provision`; 502 unless the backend answers 2xx with a job. */
async function enqueueProvision(ctx: WebContext, account: Account, agent: Agent): Promise<PlatformJobJson> {
  const answer = await callBackend(ctx.config, {
    method: "POST",
    path: "/api/platform-jobs/provision",
    user: account,
    json: {
      userId: account.id,
      email: account.email,
      agentId: agent.id,
      plan: agent.plan,
      aiProvider: agent.aiProvider,
      agentType: agent.agentType,
      autoProvision: false,
      paymentsSubscriptionId: account.paymentsSubscriptionId,
    },
    timeoutMs: PROVISION_ENQUEUE_TIMEOUT_MS,
  });
  const job = (answerJson(answer) as { job?: PlatformJobJson } | undefined)?.job;
  if (answer.status < 200 || answer.status > 299 || typeof job?.id !== "string") {
    ctx.logger.warn({ status: answer.status, agentId: agent.id }, "provision enqueue refused");
    throw backendQueueError();
  }
  return job;
}
