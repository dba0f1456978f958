/**
 * `waitForHealthy`: polls the shared probe every 2 s until the agent is up, for at most
 * 60 s by default. Time is injectable (`now`, `sleep`) so tests move it instead of waiting.
 */
import { isUp, PROBE_TIMEOUTS, type ProbeOptions, type ProbeResult, probeRuntime } from "./probe";

export const HEALTH_POLL_MS = 2_000;
export const HEALTH_TIMEOUT_MS = 60_000;

export interface WaitForHealthyOptions {
  pollMs?: number;
  timeoutMs?: number;
  /** Milliseconds since some epoch (default `Date.now`). */
  now?: () => number;
  /** Waits `ms` (default a timer); tests pass one that advances a manual clock. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** The probe (default `probeRuntime`); its timeouts never run past the deadline. */
  probe?: (url: string, options: ProbeOptions) => Promise<ProbeResult>;
}

export interface HealthWait {
  healthy: boolean;
  /** The last probe's result. */
  probe: ProbeResult;
  attempts: number;
}

function timerSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Probes `url` until `isUp` or the timeout passes; never throws for an unhealthy agent (see `healthy`). */
export async function waitForHealthy(url: string, options: WaitForHealthyOptions = {}): Promise<HealthWait> {
  const pollMs = options.pollMs ?? HEALTH_POLL_MS;
  const timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? timerSleep;
  const probe = options.probe ?? probeRuntime;
  const deadline = now() + timeoutMs;
  let attempts = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const left = Math.max(1, deadline - now());
    const result = await probe(url, {
      healthzTimeoutMs: Math.min(PROBE_TIMEOUTS.healthzTimeoutMs, left),
      readyzTimeoutMs: Math.min(PROBE_TIMEOUTS.readyzTimeoutMs, left),
      statusTimeoutMs: Math.min(PROBE_TIMEOUTS.statusTimeoutMs, left),
    });
    attempts++;
    if (isUp(result.status)) return { healthy: true, probe: result, attempts };
    if (now() + pollMs > deadline) return { healthy: false, probe: result, attempts };
    await sleep(pollMs, options.signal);
  }
}
