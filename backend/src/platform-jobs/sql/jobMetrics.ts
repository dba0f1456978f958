import { NOW, type Queryable, type QueueClock } from "./shared";

export interface QueueMetrics {
  counts: Array<{ lane: string; status: string; count: number }>;
  oldestQueuedAgeSeconds: number;
}

/** Counts per lane and status, and the age of the oldest queued job (0 when none is queued). */
export async function jobMetrics(db: Queryable, clock: QueueClock): Promise<QueueMetrics> {
  const counts = await db.query(
    "select lane, status, count(*)::int as count from platform_jobs group by lane, status order by lane, status",
  );
  const oldest = await db.query(
    `select coalesce(floor(extract(epoch from (${NOW} - min(created_at)))), 0)::int as age
     from platform_jobs where status = 'queued'`,
    [clock.now()],
  );
  return {
    counts: counts.rows.map((r) => ({ lane: r.lane, status: r.status, count: r.count })),
    oldestQueuedAgeSeconds: Math.max(0, oldest.rows[0]?.age ?? 0),
  };
}
