/**
 * Timers, injectable like the clock (the watchdog, the job worker and the task scheduler take them):
 * production uses `systemTimers`; tests use `ManualTimers`, which fire only when the test advances its
 * ManualClock and wait for each callback's asynchronous work (probe, database writes) before firing the
 * next, so a test drives minutes of a loop's life in milliseconds, step by step, without sleeping.
 */
import type { ManualClock } from "@svc/common";

/** Opaque handle of a scheduled callback. */
export type TimerHandle = object;

export interface Timers {
  /** Runs `callback` once after `delayMs`; a returned promise's rejection is swallowed (callbacks log). */
  setTimeout(callback: () => unknown, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
}

export const systemTimers: Timers = {
  setTimeout(callback, delayMs) {
    const timer = setTimeout(() => {
      Promise.resolve()
        .then(callback)
        .catch(() => undefined);
    }, delayMs);
    // A background loop alone must not keep a process alive that is shutting down.
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    if (handle) clearTimeout(handle as NodeJS.Timeout);
  },
};

interface ManualEntry {
  due: number;
  seq: number;
  callback: () => unknown;
  owner: ManualTimerScope;
}

/** Timers driven by a ManualClock. `scope()` gives a group of timers that can be dropped at once. */
export class ManualTimers implements Timers {
  private entries: ManualEntry[] = [];
  private inFlight = new Set<Promise<unknown>>();
  private seq = 0;
  private readonly root: ManualTimerScope;

  constructor(readonly clock: ManualClock) {
    this.root = new ManualTimerScope(this);
  }

  setTimeout(callback: () => unknown, delayMs: number): TimerHandle {
    return this.root.setTimeout(callback, delayMs);
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    this.entries = this.entries.filter((e) => e !== handle);
  }

  /** A group of timers on this schedule; `dispose()` drops its pending timers and refuses new ones. */
  scope(): ManualTimerScope {
    return new ManualTimerScope(this);
  }

  /** Due times (ms since the epoch) of the pending timers, soonest first. */
  pendingDueTimes(): number[] {
    return this.sorted().map((e) => e.due);
  }

  /** Waits until no fired callback is still running. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Moves the clock forward by `ms`, firing every timer that falls due on the way in order (the clock set to
   * each one's due time) and waiting for each callback, and for timers it schedules within the window.
   */
  async advance(ms: number): Promise<void> {
    const target = this.clock.now().getTime() + ms;
    for (;;) {
      await this.settle();
      const next = this.sorted()[0];
      if (!next || next.due > target) break;
      this.entries = this.entries.filter((e) => e !== next);
      if (next.due > this.clock.now().getTime()) this.clock.set(next.due);
      this.track(Promise.resolve().then(next.callback));
    }
    if (target > this.clock.now().getTime()) this.clock.set(target);
  }

  /** Advances to the soonest pending timer and fires it (and whatever falls due at that instant). */
  async runNext(): Promise<void> {
    await this.settle();
    const next = this.sorted()[0];
    if (!next) throw new Error("no timer is pending");
    await this.advance(Math.max(0, next.due - this.clock.now().getTime()));
  }

  /** @internal */
  add(owner: ManualTimerScope, callback: () => unknown, delayMs: number): TimerHandle {
    const entry: ManualEntry = {
      due: this.clock.now().getTime() + Math.max(0, delayMs),
      seq: this.seq++,
      callback,
      owner,
    };
    this.entries.push(entry);
    return entry;
  }

  /** @internal */
  dropScope(owner: ManualTimerScope): void {
    this.entries = this.entries.filter((e) => e.owner !== owner);
  }

  private track(promise: Promise<unknown>): void {
    const settled = promise.catch(() => undefined).finally(() => this.inFlight.delete(settled));
    this.inFlight.add(settled);
  }

  private sorted(): ManualEntry[] {
    return [...this.entries].sort((a, b) => a.due - b.due || a.seq - b.seq);
  }
}

/** A group of manual timers (for example one simulated process); `dispose()` is that process dying. */
export class ManualTimerScope implements Timers {
  private disposed = false;

  constructor(private readonly schedule: ManualTimers) {}

  setTimeout(callback: () => unknown, delayMs: number): TimerHandle {
    if (this.disposed) return {};
    return this.schedule.add(this, callback, delayMs);
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    this.schedule.clearTimeout(handle);
  }

  dispose(): void {
    this.disposed = true;
    this.schedule.dropScope(this);
  }
}
