import type { Database } from "@svc/db";
import { agents, platformJobs, users } from "@svc/db/schema";
import { count, desc, eq, inArray } from "drizzle-orm";
import { isAdminEmail } from "../auth/admin";
import type { AdminListQuery } from "./inputs";

/** The most recent platform job of a user or an agent. */
export interface AdminLastJob {
  id: string;
  jobType: string;
  status: string;
  createdAt: string;
}

export interface AdminUser {
  id: string;
  email: string;
  name: string;
  plan: string;
  isAdmin: boolean;
  emailVerified: boolean;
  createdAt: string;
  agentCount: number;
  lastJob: AdminLastJob | null;
}

export interface AdminAgent {
  id: string;
  name: string;
  status: string;
  url: string | null;
  owner: { id: string; email: string };
  plan: string;
  createdAt: string;
  lastJob: AdminLastJob | null;
}

/**
 * Users, newest first, with their agent count and most recent job. Only listed columns are read, so password
 * hashes and other secrets never leave the database. `isAdmin` is the stored flag, or a proven (verified)
 * email in `ADMIN_EMAILS`, the same rule by which the web signs role `admin` for an account.
 */
export async function listUsers(
  deps: { db: Database; adminEmails: readonly string[] },
  page: AdminListQuery,
): Promise<{ users: AdminUser[] }> {
  const rows = await deps.db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      plan: users.plan,
      isAdmin: users.isAdmin,
      emailVerifiedAt: users.emailVerifiedAt,
      createdAt: users.createdAt,
    })
    .from(users)
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(page.limit)
    .offset(page.offset);
  const ids = rows.map((row) => row.id);
  const [agentCounts, jobs] = await Promise.all([
    agentCountsOf(deps.db, ids),
    lastJobsBy(deps.db, "userId", ids),
  ]);
  return {
    users: rows.map((row) => ({
      id: row.id,
      email: row.email,
      name: row.name,
      plan: row.plan,
      isAdmin: row.isAdmin || (row.emailVerifiedAt !== null && isAdminEmail(deps.adminEmails, row.email)),
      emailVerified: row.emailVerifiedAt !== null,
      createdAt: row.createdAt.toISOString(),
      agentCount: agentCounts.get(row.id) ?? 0,
      lastJob: jobs.get(row.id) ?? null,
    })),
  };
}

/** Agents, newest first, with their owner and most recent job; gateway tokens are never read. */
export async function listAgents(
  deps: { db: Database },
  page: AdminListQuery,
): Promise<{ agents: AdminAgent[] }> {
  const rows = await deps.db
    .select({
      id: agents.id,
      name: agents.name,
      status: agents.status,
      url: agents.url,
      ownerId: users.id,
      ownerEmail: users.email,
      plan: agents.plan,
      createdAt: agents.createdAt,
    })
    .from(agents)
    .innerJoin(users, eq(users.id, agents.userId))
    .orderBy(desc(agents.createdAt), desc(agents.id))
    .limit(page.limit)
    .offset(page.offset);
  const jobs = await lastJobsBy(
    deps.db,
    "agentId",
    rows.map((row) => row.id),
  );
  return {
    agents: rows.map((row) => ({
      id: row.id,
      name: row.name,
      status: row.status,
      url: row.url,
      owner: { id: row.ownerId, email: row.ownerEmail },
      plan: row.plan,
      createdAt: row.createdAt.toISOString(),
      lastJob: jobs.get(row.id) ?? null,
    })),
  };
}

async function agentCountsOf(db: Database, userIds: string[]): Promise<Map<string, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .select({ userId: agents.userId, agentCount: count() })
    .from(agents)
    .where(inArray(agents.userId, userIds))
    .groupBy(agents.userId);
  return new Map(rows.map((row) => [row.userId, Number(row.agentCount)]));
}

/** The newest job of each owner (`DISTINCT ON`, one indexed pass), keyed by user id or agent id. */
async function lastJobsBy(
  db: Database,
  owner: "userId" | "agentId",
  ids: string[],
): Promise<Map<string, AdminLastJob>> {
  if (ids.length === 0) return new Map();
  const ownerColumn = platformJobs[owner];
  const rows = await db
    .selectDistinctOn([ownerColumn], {
      ownerId: ownerColumn,
      id: platformJobs.id,
      jobType: platformJobs.jobType,
      status: platformJobs.status,
      createdAt: platformJobs.createdAt,
    })
    .from(platformJobs)
    .where(inArray(ownerColumn, ids))
    .orderBy(ownerColumn, desc(platformJobs.createdAt), desc(platformJobs.id));
  const jobs = new Map<string, AdminLastJob>();
  for (const row of rows) {
    if (row.ownerId === null) continue;
    jobs.set(row.ownerId, {
      id: row.id,
      jobType: row.jobType,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
    });
  }
  return jobs;
}
