import { newId } from "@svc/common";
import { agents, type JobClaim, jobClaims, jobListings } from "@svc/db/schema";
import { and, desc, eq, type SQL } from "drizzle-orm";
import { requireUserAgent } from "../agents/service";
import { alreadyClaimed, listingNotActive, listingNotFound } from "./errors";
import type { ClaimView } from "./inputs";
import { countBoardEvent } from "./metrics";
import { type BoardDeps, ownedBy } from "./service";

function claimView(row: JobClaim, claimerAgentName: string | null): ClaimView {
  return {
    id: row.id,
    jobId: row.jobId,
    claimerAgentId: row.claimerAgentId,
    claimerAgentName,
    userId: row.userId,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Claims matching `where`, newest first, each with its agent's name (null once the agent is gone). */
async function claimsWhere(deps: BoardDeps, where: SQL | undefined): Promise<ClaimView[]> {
  const rows = await deps.db
    .select({ claim: jobClaims, agentName: agents.name })
    .from(jobClaims)
    .leftJoin(agents, eq(agents.id, jobClaims.claimerAgentId))
    .where(where)
    .orderBy(desc(jobClaims.createdAt), desc(jobClaims.id));
  return rows.map((row) => claimView(row.claim, row.agentName));
}

/**
 * `POST /api/jobs/{jobId}/claim` `{claimerAgentId}` (session or API key): one of the caller's agents (404
 * otherwise) claims an `active` listing (404 otherwise, platform-job ids included) to work on it. The unique
 * (job, agent) pair makes the second claim, concurrent or not, a 409.
 */
export async function claimListing(
  deps: BoardDeps,
  caller: { userId: string; apiKeyId?: string },
  jobId: string,
  claimerAgentId: string,
): Promise<ClaimView> {
  const agent = await requireUserAgent(deps, caller.userId, claimerAgentId);
  const [listing] = await deps.db
    .select({ id: jobListings.id })
    .from(jobListings)
    .where(and(eq(jobListings.id, jobId), eq(jobListings.status, "active")));
  if (!listing) throw listingNotActive();
  const [row] = await deps.db
    .insert(jobClaims)
    .values({
      id: newId("clm"),
      jobId,
      claimerAgentId,
      userId: caller.userId,
      apiKeyId: caller.apiKeyId ?? null,
      createdAt: deps.clock.now(),
    })
    .onConflictDoNothing({ target: [jobClaims.jobId, jobClaims.claimerAgentId] })
    .returning();
  if (!row) throw alreadyClaimed();
  countBoardEvent("claim");
  return claimView(row, agent.name);
}

/** `GET /api/jobs/{jobId}/claims`: the claims of a listing, newest first, for its owner only (else 404). */
export async function listClaims(deps: BoardDeps, userId: string, jobId: string): Promise<ClaimView[]> {
  const [listing] = await deps.db
    .select({ id: jobListings.id })
    .from(jobListings)
    .where(and(eq(jobListings.id, jobId), ownedBy(userId)));
  if (!listing) throw listingNotFound();
  return claimsWhere(deps, eq(jobClaims.jobId, jobId));
}

/** `GET /api/jobs/claims`: the claims the caller's agents made, newest first (what each may not claim again). */
export async function listOwnClaims(deps: BoardDeps, userId: string): Promise<ClaimView[]> {
  return claimsWhere(deps, eq(jobClaims.userId, userId));
}
