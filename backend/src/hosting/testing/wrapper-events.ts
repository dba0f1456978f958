/**
 * Waiting for a local agent's wrapper by its own events (`GET /api/events`, server-sent `{state}` messages,
 * the current state first), so tests wait for what happened rather than for probes that must answer within
 * a time limit.
 */
import { vi } from "vitest";

/**
 * Resolves once the wrapper at `url` reports its runtime in `state`. While the wrapper is not listening
 * yet (connection refused) it connects again; a refused connection answers at once, whatever the load.
 * The test's own timeout bounds the wait.
 */
export async function wrapperReaches(url: string, adminToken: string, state = "running"): Promise<void> {
  for (;;) {
    const res = await vi.waitFor(
      () => fetch(`${url}/api/events`, { headers: { authorization: `Bearer ${adminToken}` } }),
      { timeout: 600_000, interval: 25 },
    );
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
