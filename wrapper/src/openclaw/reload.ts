/**
 * Makes a running OpenClaw load the configuration file just written, and confirms it did. OpenClaw watches
 * its file, but its watcher noticed a change after 1.3 s, after 14 s, and once not at all (tried on
 * 2026.4.11); `SIGUSR1` restarts the gateway inside the same process (with `OPENCLAW_NO_RESPAWN=1`), which
 * prints `[gateway] ready (…)` when done. So: signal, wait for that line, then prove the permission plugin
 * is loaded again. A runtime that is not running reads the file at its next start.
 */
import type { LogEntry } from "../runtime/logs";
import type { Supervisor } from "../runtime/supervisor";

const READY_LINE = /\[gateway\] ready \(/;
export const RELOAD_TIMEOUT_MS = 60_000;

export interface ReloadOptions {
  supervisor: Supervisor;
  /** Throws when the permission plugin is not loaded (then the runtime is restarted, fail-closed). */
  verify: () => Promise<void>;
  /** Called once the gateway restarted in process: connections to the old one are dropped. */
  onRestarted?: () => void;
  timeoutMs?: number;
}

export function createReload({
  supervisor,
  verify,
  onRestarted,
  timeoutMs = RELOAD_TIMEOUT_MS,
}: ReloadOptions) {
  return async function reload(): Promise<void> {
    if (supervisor.state !== "running") return;
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`the runtime did not reload its configuration within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const unsubscribe = supervisor.logs.subscribe((entry: LogEntry) => {
        if (!READY_LINE.test(entry.line)) return;
        clearTimeout(timer);
        unsubscribe();
        resolve();
      });
    });
    if (!supervisor.signal("SIGUSR1")) {
      // It went away meanwhile: the next start reads the new file.
      ready.catch(() => undefined);
      return;
    }
    try {
      await ready;
      onRestarted?.();
      await verify();
    } catch (error) {
      // Whatever state the reload left, a clean start applies the file and verifies the guard again.
      supervisor.logs.push(
        "stderr",
        `[wrapper] reload not confirmed (${(error as Error).message}); restarting the runtime`,
      );
      await supervisor.restart();
    }
  };
}
