import { newId } from "@svc/common";
import { companies, type JobApplication, jobApplications, jobListings } from "@svc/db/schema";
import { and, desc, eq, sql } from "drizzle-orm";
import { alreadyApplied, listingNotActive } from "./errors";
import { type ApplicationView, type ApplicationWithListingView, PUBLIC_STATUSES } from "./inputs";
import { countBoardEvent } from "./metrics";
import { type BoardDeps, listingView } from "./service";

function applicationView(row: JobApplication): ApplicationView {
  return {
    id: row.id,
    listingId: row.listingId,
    userId: row.userId,
    hasProfile: row.hasProfile,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * `POST /api/jobs/apply` `{listingId}`: one transaction counts the application on an `active` listing (404
 * otherwise) and inserts it. The count's row lock orders concurrent applications of one listing, and the
 * unique (listing, user) pair turns a second one into 400 "already applied", rolling its count back.
 * `hasProfile` is false: career profiles do not exist yet.
 */
export async function applyToListing(
  deps: BoardDeps,
  userId: string,
  listingId: string,
): Promise<ApplicationView> {
  const now = deps.clock.now();
  const application = await deps.db.transaction(async (tx) => {
    const [listing] = await tx
      .update(jobListings)
      .set({ applyCount: sql`${jobListings.applyCount} + 1`, updatedAt: sql`${jobListings.updatedAt}` })
      .where(and(eq(jobListings.id, listingId), eq(jobListings.status, "active")))
      .returning({ id: jobListings.id });
    if (!listing) throw listingNotActive();
    const [row] = await tx
      .insert(jobApplications)
      .values({ id: newId("app"), listingId, userId, hasProfile: false, createdAt: now })
      .onConflictDoNothing({ target: [jobApplications.listingId, jobApplications.userId] })
      .returning();
    if (!row) throw alreadyApplied();
    return applicationView(row);
  });
  countBoardEvent("application");
  return application;
}

/**
 * `GET /api/jobs/apply`: the caller's applications, newest first, each with its listing and company. A listing
 * moved back to `draft` after the caller applied is its company owner's alone again: the application stays
 * (it still exists, and applying again is still "already applied") with `listing: null`.
 */
export async function listApplications(
  deps: BoardDeps,
  userId: string,
): Promise<ApplicationWithListingView[]> {
  const rows = await deps.db
    .select({ application: jobApplications, listing: jobListings, company: companies })
    .from(jobApplications)
    .innerJoin(jobListings, eq(jobListings.id, jobApplications.listingId))
    .innerJoin(companies, eq(companies.id, jobListings.companyId))
    .where(eq(jobApplications.userId, userId))
    .orderBy(desc(jobApplications.createdAt), desc(jobApplications.id));
  return rows.map((row) => ({
    ...applicationView(row.application),
    listing:
      PUBLIC_STATUSES.includes(row.listing.status) || row.company.advertiserId === userId
        ? listingView(row.listing, row.company)
        : null,
  }));
}
