import { newId } from "@svc/common";
import type { Database } from "@svc/db";
import { type Company, companies, type JobListing, jobListings } from "@svc/db/schema";
import { and, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { parseWith } from "../infra/http/body";
import { companyNotOwned, listingNotFound, slugTaken } from "./errors";
import {
  BOARD_LIST_MAX,
  type CompanyView,
  type CreateCompanyInput,
  type CreateListingInput,
  createCompanyBody,
  createListingBody,
  type ListBoardQuery,
  type ListingStatus,
  type ListingView,
  PUBLIC_STATUSES,
} from "./inputs";
import { countBoardEvent } from "./metrics";
import { searchListingIds } from "./search";

export type BoardDeps = Pick<WebContext, "db" | "clock">;

/** Listing ids carry their own prefix, so `/api/jobs/{jobId}/...` can tell them from platform jobs (`job_`). */
export const LISTING_ID_PREFIX = "lst";

export function companyView(row: Company): CompanyView {
  return {
    id: row.id,
    advertiserId: row.advertiserId,
    name: row.name,
    slug: row.slug,
    logoUrl: row.logoUrl,
    website: row.website,
    description: row.description,
    githubOrg: row.githubOrg,
    hiredCount: row.hiredCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function listingView(row: JobListing, company: Company): ListingView {
  return {
    id: row.id,
    companyId: row.companyId,
    title: row.title,
    description: row.description,
    salaryMin: row.salaryMin,
    salaryMax: row.salaryMax,
    salaryCurrency: row.salaryCurrency,
    roleType: row.roleType,
    techStack: row.techStack,
    seniority: row.seniority,
    contractType: row.contractType,
    webType: row.webType,
    applyUrl: row.applyUrl,
    language: row.language,
    languagePtBr: row.languagePtBr,
    status: row.status,
    tier: row.tier,
    viewCount: row.viewCount,
    applyCount: row.applyCount,
    badgeResponseGuaranteed: row.badgeResponseGuaranteed,
    badgeNoAiScreening: row.badgeNoAiScreening,
    publishedAt: row.publishedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    company: companyView(company),
  };
}

/** `listing.company_id` names a company of `userId` (a correlated sub-select, for one-statement updates). */
export function ownedBy(userId: string): SQL {
  return sql`${jobListings.companyId} in (select ${companies.id} from ${companies} where ${companies.advertiserId} = ${userId})`;
}

/** Anybody sees `active` and `closed` listings; every other status only the company's owner. */
function visibleTo(userId: string | undefined): SQL {
  const open = inArray(jobListings.status, [...PUBLIC_STATUSES]);
  return userId ? (or(open, ownedBy(userId)) as SQL) : open;
}

/**
 * `GET /api/jobs/board`: up to 50 listings with their companies, newest published first. `active` (the
 * default) and `closed` are public; any other status lists only listings of the caller's own companies
 * (nothing for an anonymous caller). `mine=true` lists the caller's own listings of every status (drafts
 * first, as they have no `publishedAt`). `search` is a case-insensitive substring of title or description
 * (./search.ts: the newest listings in order first, then by the share of matches seen there, a longer
 * walk or the pg_trgm GIN index of the lower-cased search text).
 */
export async function listListings(
  deps: BoardDeps,
  userId: string | undefined,
  query: ListBoardQuery,
): Promise<ListingView[]> {
  const filters = listingFilters(userId, query);
  if (!filters) return [];
  if (!query.search) {
    const rows = await selectListings(deps.db)
      .where(filters)
      .orderBy(...newestFirst())
      .limit(BOARD_LIST_MAX);
    return rows.map((row) => listingView(row.listing, row.company));
  }
  const search = query.search;
  // The walks and the final read see one snapshot: a listing published, closed or sent back to draft
  // meanwhile can neither appear twice, be skipped, nor be shown once its filters no longer hold.
  return deps.db.transaction(
    async (tx) => {
      const ids = [...new Set(await searchListingIds(tx, filters, search))];
      if (ids.length === 0) return [];
      const rows = await selectListings(tx).where(and(filters, inArray(jobListings.id, ids)));
      const byId = new Map(rows.map((row) => [row.listing.id, row]));
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [listingView(row.listing, row.company)] : [];
      });
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

function selectListings(db: Pick<Database, "select">) {
  return db
    .select({ listing: jobListings, company: companies })
    .from(jobListings)
    .innerJoin(companies, eq(companies.id, jobListings.companyId));
}

function newestFirst(): SQL[] {
  return [
    sql`${jobListings.publishedAt} desc nulls first`,
    desc(jobListings.createdAt),
    desc(jobListings.id),
  ];
}

/** The list's conditions other than `search`; null when the caller may see nothing. */
export function listingFilters(userId: string | undefined, query: ListBoardQuery): SQL | null {
  const conditions: SQL[] = [];
  if (query.mine) {
    if (!userId) return null;
    conditions.push(eq(companies.advertiserId, userId));
    if (query.status) conditions.push(eq(jobListings.status, query.status));
  } else {
    const status = query.status ?? "active";
    conditions.push(eq(jobListings.status, status));
    if (!PUBLIC_STATUSES.includes(status)) {
      if (!userId) return null;
      conditions.push(eq(companies.advertiserId, userId));
    }
  }
  if (query.roleType) conditions.push(eq(jobListings.roleType, query.roleType));
  if (query.seniority) conditions.push(eq(jobListings.seniority, query.seniority));
  if (query.webType) conditions.push(eq(jobListings.webType, query.webType));
  return and(...conditions) as SQL;
}

/**
 * `GET /api/jobs/board/{id}`: the listing with its company, counting one view in the same statement
 * (`view_count + 1`, so concurrent reads each count). Drafts answer only their owner; otherwise 404.
 */
export async function readListing(
  deps: BoardDeps,
  userId: string | undefined,
  listingId: string,
): Promise<ListingView> {
  const [row] = await deps.db
    .update(jobListings)
    .set({ viewCount: sql`${jobListings.viewCount} + 1`, updatedAt: sql`${jobListings.updatedAt}` })
    .where(and(eq(jobListings.id, listingId), visibleTo(userId)))
    .returning();
  if (!row) throw listingNotFound();
  return listingView(row, await companyOf(deps.db, row.companyId));
}

async function companyOf(db: Database, companyId: string): Promise<Company> {
  const [company] = await db.select().from(companies).where(eq(companies.id, companyId));
  return company;
}

/** `POST /api/jobs/board` body: a company when `type` is "company", else a listing (400 naming the field). */
export function parseBoardPost(
  raw: Record<string, unknown>,
): { kind: "company"; input: CreateCompanyInput } | { kind: "listing"; input: CreateListingInput } {
  return raw.type === "company"
    ? { kind: "company", input: parseWith(createCompanyBody, raw) }
    : { kind: "listing", input: parseWith(createListingBody, raw) };
}

/** `POST /api/jobs/board` (a listing): a `draft` of one of the caller's companies; 403 for anybody else's. */
export async function createListing(
  deps: BoardDeps,
  userId: string,
  input: CreateListingInput,
): Promise<ListingView> {
  const [company] = await deps.db
    .select()
    .from(companies)
    .where(and(eq(companies.id, input.companyId), eq(companies.advertiserId, userId)));
  if (!company) throw companyNotOwned();
  const { type: _type, ...fields } = input;
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(jobListings)
    .values({ ...fields, id: newId(LISTING_ID_PREFIX), status: "draft", createdAt: now, updatedAt: now })
    .returning();
  countBoardEvent("listing_created");
  return listingView(row, company);
}

/** `POST /api/jobs/board` with `type: "company"`: a company owned by the caller; a taken slug is 409. */
export async function createCompany(
  deps: BoardDeps,
  userId: string,
  input: CreateCompanyInput,
): Promise<CompanyView> {
  const { type: _type, ...fields } = input;
  const now = deps.clock.now();
  const [row] = await deps.db
    .insert(companies)
    .values({ ...fields, id: newId("cmp"), advertiserId: userId, createdAt: now, updatedAt: now })
    .onConflictDoNothing({ target: companies.slug })
    .returning();
  if (!row) throw slugTaken(input.slug);
  countBoardEvent("company_created");
  return companyView(row);
}

/** `GET /api/jobs/companies`: the caller's companies, newest first. */
export async function listCompanies(deps: BoardDeps, userId: string): Promise<CompanyView[]> {
  const rows = await deps.db
    .select()
    .from(companies)
    .where(eq(companies.advertiserId, userId))
    .orderBy(desc(companies.createdAt), desc(companies.id));
  return rows.map(companyView);
}

/**
 * `PATCH /api/jobs/board/{id}` `{status}` (owner only, else 404), one statement: the first move to
 * `active` sets `publishedAt`; later moves keep it.
 */
export async function updateListingStatus(
  deps: BoardDeps,
  userId: string,
  listingId: string,
  status: ListingStatus,
): Promise<ListingView> {
  const now = deps.clock.now();
  const [row] = await deps.db
    .update(jobListings)
    .set({
      status,
      publishedAt:
        status === "active"
          ? sql`coalesce(${jobListings.publishedAt}, ${now.toISOString()}::timestamptz)`
          : sql`${jobListings.publishedAt}`,
      updatedAt: now,
    })
    .where(and(eq(jobListings.id, listingId), ownedBy(userId)))
    .returning();
  if (!row) throw listingNotFound();
  if (status === "active" && row.publishedAt?.getTime() === now.getTime())
    countBoardEvent("listing_published");
  return listingView(row, await companyOf(deps.db, row.companyId));
}
