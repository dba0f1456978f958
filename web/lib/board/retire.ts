import type { Database } from "@svc/db";
import { companies, jobListings } from "@svc/db/schema";
import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import { PUBLIC_STATUSES } from "./inputs";

type Tx = Pick<Database, "update" | "delete">;

/**
 * An advertiser's account is being deleted (issue 26 item 7): what others saw stays as a deleted user's
 * record. Active listings close (nobody is left to hire, or to close them later), listings nobody else could
 * see (drafts and the like) go, and so do the advertiser's companies left without a listing; the companies
 * that keep public listings lose their owner when the account row goes (`advertiser_id` is set null), which
 * the board shows as "deleted user". Claims by the account's agents on others' listings stay the same way
 * (`job_claims.user_id` set null). Run it in the deleting transaction, before the account row is deleted.
 */
export async function retireAdvertiser(tx: Tx, userId: string, now: Date): Promise<void> {
  const owned = sql`(select ${companies.id} from ${companies} where ${companies.advertiserId} = ${userId})`;
  await tx
    .update(jobListings)
    .set({ status: "closed", updatedAt: now })
    .where(and(inArray(jobListings.companyId, owned), eq(jobListings.status, "active")));
  await tx
    .delete(jobListings)
    .where(and(inArray(jobListings.companyId, owned), notInArray(jobListings.status, [...PUBLIC_STATUSES])));
  await tx
    .delete(companies)
    .where(
      and(
        eq(companies.advertiserId, userId),
        sql`not exists (select 1 from ${jobListings} where ${jobListings.companyId} = ${companies.id})`,
      ),
    );
}
