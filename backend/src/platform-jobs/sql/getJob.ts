import type { PlatformJob } from "@svc/db/schema";
import { type Queryable, toJob } from "./shared";

/** One job by id. */
export async function getJob(db: Queryable, id: string): Promise<PlatformJob | null> {
  const { rows } = await db.query({
    name: "platform_jobs_get",
    text: "select * from platform_jobs where id = $1",
    values: [id],
  });
  return rows[0] ? toJob(rows[0]) : null;
}
