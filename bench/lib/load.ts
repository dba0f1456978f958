/**
 * A closed-loop load generator for calls autocannon cannot make (a paying client answering each 402):
 * `concurrency` loops, each calling `call(loop)` again as soon as its previous call ended, for `seconds`;
 * calls under way when the time is up are awaited, so every call started is counted. A call that throws
 * counts as an error.
 */
export interface LoadResult {
  /** Calls that ended without throwing. */
  ok: number;
  errors: number;
  /** The first error seen, for the message. */
  firstError: unknown;
  /** Wall time from the first call to the last call's end. */
  seconds: number;
  /** Each successful call's latency, ms. */
  latencies: number[];
}

export async function closedLoop(
  concurrency: number,
  seconds: number,
  call: (loop: number) => Promise<void>,
): Promise<LoadResult> {
  const result: LoadResult = { ok: 0, errors: 0, firstError: undefined, seconds: 0, latencies: [] };
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const loop = async (index: number) => {
    while (performance.now() < deadline) {
      const began = performance.now();
      try {
        await call(index);
        result.latencies.push(performance.now() - began);
        result.ok++;
      } catch (err) {
        result.errors++;
        result.firstError ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i)));
  result.seconds = (performance.now() - start) / 1000;
  return result;
}

/** Calls per second of a closed loop in which every call must succeed (the first failure is thrown). */
export async function callsPerSecond(
  concurrency: number,
  seconds: number,
  call: (loop: number) => Promise<void>,
): Promise<number> {
  const result = await closedLoop(concurrency, seconds, call);
  if (result.errors > 0) throw result.firstError;
  return result.ok / result.seconds;
}

/** The `p`th percentile of `values` (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
