import type { Database } from "@svc/db";
import { companies, jobListings } from "@svc/db/schema";
import { getTableName, type SQL, sql } from "drizzle-orm";
import { BOARD_LIST_MAX } from "./inputs";

/**
 * The search walks the newest listings (under the other filters) in order and stops at the 50th match: a
 * common term is answered after a few hundred rows. When this first window ends short, the share of matches
 * it saw estimates how rare the term is, and the cheaper way to the rest is taken: walking on (at most
 * `SEARCH_CONTINUE_MAX` rows) while fewer rows remain to read than the trigram index would return (each
 * match costs a heap fetch and recheck, like a row walked), else the index (a rare term). The planner cannot
 * choose this itself: it knows neither how rare a term is nor what LIKE on long text costs. Every way
 * answers the same newest 50 matches.
 */
export const SEARCH_WINDOW = 1000;
/** The most rows the walk goes on for after the first window before it turns to the index. */
export const SEARCH_CONTINUE_MAX = 4000;

/**
 * `%term%` for LIKE, the term's own `%`, `_` and `\` taken literally. Lower-cased by PostgreSQL in the
 * statement (`like lower(…)`), with the same `lower()` that made `search_text`, so both sides fold case
 * alike whatever the database's locale (a C-locale database folds ASCII letters only, on both sides).
 */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The board's order with the id last, so that two reads of one order skip and see the same rows. */
const newestFirst = sql`${jobListings.publishedAt} desc nulls first, ${jobListings.createdAt} desc, ${jobListings.id} desc`;

export type WalkRow = {
  id: string;
  matched: boolean;
  /** 1-based position of the row in the board's order under the filters. */
  pos: number;
  /** pg_class.reltuples of job_listings: the planner's estimate of its rows (-1 before the first ANALYZE). */
  table_rows: number;
};

/**
 * Walks `rows` listings under `filters` in the board's order after the first `offset`, and returns each
 * match (up to `wanted`, where it stops reading) and the walk's last row whether it matched or not, so the
 * caller can tell a walk that ran out of listings from one that ran out of rows to read.
 */
export function walkStatement(
  filters: SQL,
  pattern: string,
  walk: { offset: number; rows: number; wanted: number },
): SQL {
  const last = walk.offset + walk.rows;
  return sql`
    select id, matched, pos::int as pos,
      (select reltuples::float8 from pg_class where oid = ${getTableName(jobListings)}::regclass) as table_rows
    from (
      select id, search_text like lower(${pattern}) as matched,
        ${sql.raw(String(walk.offset))} + row_number() over (order by published_at desc nulls first, created_at desc, id desc) as pos
      from (
        select ${jobListings.id} as id, ${jobListings.searchText} as search_text,
          ${jobListings.publishedAt} as published_at, ${jobListings.createdAt} as created_at
        from ${jobListings} inner join ${companies} on ${companies.id} = ${jobListings.companyId}
        where ${filters}
        order by ${newestFirst}
        limit ${sql.raw(String(walk.rows))} offset ${sql.raw(String(walk.offset))}) as newest) as walked
    where matched or pos = ${sql.raw(String(last))}
    limit ${sql.raw(String(walk.wanted))}`;
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
      where ${filters} and ${jobListings.searchText} like lower(${pattern}))
    select id from matches
    order by published_at desc nulls first, created_at desc, id desc
    limit ${sql.raw(String(BOARD_LIST_MAX))}`;
}

interface Walked {
  ids: string[];
  /** The walk reached its last row: there may be more listings after it. */
  cut: boolean;
  tableRows: number;
}

async function walkListings(
  db: Reader,
  filters: SQL,
  pattern: string,
  walk: { offset: number; rows: number; wanted: number },
): Promise<Walked> {
  const { rows } = await db.execute<WalkRow>(walkStatement(filters, pattern, walk));
  return {
    ids: rows.flatMap((row) => (row.matched ? [row.id] : [])),
    cut: rows.some((row) => row.pos === walk.offset + walk.rows),
    tableRows: Number(rows[0]?.table_rows ?? -1),
  };
}

/**
 * How many more rows to walk after a first window that found `found` matches, or null when the trigram
 * index is the cheaper way to the rest: rows still to read ≈ (50 − found) / share, against matches the
 * index returns ≈ share × the table's rows.
 */
export function continueRows(found: number, tableRows: number): number | null {
  if (found === 0 || tableRows <= 0) return null;
  const share = found / SEARCH_WINDOW;
  const toRead = Math.ceil((BOARD_LIST_MAX - found) / share);
  if (toRead > share * tableRows) return null;
  // Twice the estimate, so an unlucky stretch of the walk still finds its matches without a third read.
  return Math.min(2 * toRead, SEARCH_CONTINUE_MAX);
}

/** What a search reads through: the database, or the one read-only transaction of a whole list call. */
export type Reader = Pick<Database, "execute">;

/** The ids of the newest 50 listings under `filters` whose title or description contains `term`. */
export async function searchListingIds(db: Reader, filters: SQL, term: string): Promise<string[]> {
  const pattern = containsPattern(term);
  const first = await walkListings(db, filters, pattern, {
    offset: 0,
    rows: SEARCH_WINDOW,
    wanted: BOARD_LIST_MAX,
  });
  // 50 matches among the newest, or the window held every listing under the filters: these are the answer.
  if (first.ids.length === BOARD_LIST_MAX || !first.cut) return first.ids;
  const rows = continueRows(first.ids.length, first.tableRows);
  if (rows !== null) {
    const wanted = BOARD_LIST_MAX - first.ids.length;
    const next = await walkListings(db, filters, pattern, { offset: SEARCH_WINDOW, rows, wanted });
    if (next.ids.length === wanted || !next.cut) return [...first.ids, ...next.ids];
  }
  const matches = await db.execute<{ id: string }>(matchStatement(filters, pattern));
  return matches.rows.map((row) => row.id);
}
