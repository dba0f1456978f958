/**
 * Waiting for a local agent's wrapper by its own events (`GET /api/events`, server-sent `{state}` messages,
 * the current state first), so tests wait for what happened rather than for probes that must answer within
 * a time limit.
 */
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Resolves once the wrapper at `url` reports its runtime in `state`. While the wrapper is not listening
 * yet (connection refused) it connects again; a refused connection answers at once, whatever the load.
 */
export async function wrapperReaches(url: string, adminToken: string, state = "running"): Promise<void> {
  for (;;) {
    let res: Response;
    try {
      res = await fetch(`${url}/api/events`, { headers: { authorization: `Bearer ${adminToken}` } });
    } catch {
      await sleep(25);
      continue;
    }
    if (!res.ok || !res.body) throw new Error(`${url}/api/events answered ${res.status}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    try {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: "", done: true }));
        if (done) break;
        buffered += value;
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        for (const line of lines) {
          if (!line.startsWith("data: ")) continue;
          if ((JSON.parse(line.slice(6)) as { state?: unknown }).state === state) return;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    // The stream ended or broke (the wrapper went away): connect again.
  }
}
