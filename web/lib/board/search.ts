import type { Database } from "@svc/db";
import { companies, jobListings } from "@svc/db/schema";
import { type SQL, sql } from "drizzle-orm";
import { BOARD_LIST_MAX } from "./schema";

/**
 * How many of the newest listings (under the other filters) the search reads in order before it turns
 * to the trigram indexes. A common term finds its 50 there at once; a rare one would make an ordered walk
 * read most of the table, so it is answered from the indexes, whose cost grows with the matches instead.
 * The planner cannot make this choice itself: it does not know how rare a term is, nor what LIKE on
 * long text costs.
 */
export const SEARCH_WINDOW = 1000;

/** `%term%` for LIKE on the lower-cased `search_text`, the term's own `%`, `_` and `\` taken literally. */
export function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const newestFirst = sql`${jobListings.publishedAt} desc nulls first, ${jobListings.createdAt} desc`;

/** The matches among the newest SEARCH_WINDOW listings under `filters`, and how many of those there were. */
export function windowStatement(filters: SQL, pattern: string): SQL {
  return sql`
    with newest as (
      select ${jobListings.id} as id, ${jobListings.searchText} as search_text,
        ${jobListings.publishedAt} as published_at, ${jobListings.createdAt} as created_at
      from ${jobListings} inner join ${companies} on ${companies.id} = ${jobListings.companyId}
      where ${filters}
      order by ${newestFirst}
      limit ${sql.raw(String(SEARCH_WINDOW))})
    select counted.scanned, matched.id
    from (select count(*)::int as scanned from newest) as counted
    left join lateral (
      select id, published_at, created_at from newest
      where search_text like ${pattern}
      order by published_at desc nulls first, created_at desc
      limit ${sql.raw(String(BOARD_LIST_MAX))}) as matched on true
    order by matched.published_at desc nulls first, matched.created_at desc`;
}

/**
 * Every match under `filters`, found through the trigram index (a materialized set has no order to walk,
 * so the planner takes the index's bitmap), newest 50 first.
 */
export function matchStatement(filters: SQL, pattern: string): SQL {
  return sql`
    with matches as materialized (
      select ${jobListings.id} as id, ${jobListings.publishedAt} as published_at, ${jobListings.createdAt} as created_at
      from ${jobListings} inner join ${companies} on ${companies.id} = ${jobListings.companyId}
      where ${filters} and ${jobListings.searchText} like ${pattern})
    select id from matches
    order by published_at desc nulls first, created_at desc
    limit ${sql.raw(String(BOARD_LIST_MAX))}`;
}

/** The ids of the newest 50 listings under `filters` whose title or description contains `term`. */
export async function searchListingIds(db: Database, filters: SQL, term: string): Promise<string[]> {
  const pattern = containsPattern(term);
  const { rows } = await db.execute<{ scanned: number; id: string | null }>(
    windowStatement(filters, pattern),
  );
  const ids = rows.flatMap((row) => (row.id ? [row.id] : []));
  // The window held every listing under the filters, or already 50 matches: these are the newest.
  if (ids.length === BOARD_LIST_MAX || (rows[0]?.scanned ?? 0) < SEARCH_WINDOW) return ids;
  const matches = await db.execute<{ id: string }>(matchStatement(filters, pattern));
  return matches.rows.map((row) => row.id);
}
