/**
 * Cron jobs of the development runtime: `{kind: "every", everyMs}` schedules. Each run of a job with a
 * `message` sends it through the chat path into the session `cron:<name>`; a failed run is logged and
 * recorded on the job, and the job goes on.
 */
import { randomBytes } from "node:crypto";

/** setTimeout's largest delay; longer intervals would fire at once. */
export const MAX_EVERY_MS = 2_147_483_647;
export const MIN_EVERY_MS = 100;
const MAX_MESSAGE_LENGTH = 20_000;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;

/** A request the caller has to fix: 400 with this message. */
export class CronInputError extends Error {}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks a job name from the path. */
export function checkJobName(name) {
  if (!NAME.test(name)) {
    throw new CronInputError(
      "the job name must be 1 to 100 letters, digits, '.', '_', ':' or '-', starting with a letter or digit",
    );
  }
  return name;
}

/** Checks a `PUT /api/cron/:name` body `{enabled, schedule: {kind: "every", everyMs}, message?}`. */
export function parseJobInput(body) {
  if (!isObject(body)) throw new CronInputError("the request body must be a JSON object");
  for (const key of Object.keys(body)) {
    if (!["enabled", "schedule", "message"].includes(key)) throw new CronInputError(`unknown field: ${key}`);
  }
  if (typeof body.enabled !== "boolean")
    throw new CronInputError("enabled is required and must be a boolean");
  const { schedule } = body;
  if (!isObject(schedule)) throw new CronInputError("schedule is required and must be an object");
  if (schedule.kind !== "every") throw new CronInputError('schedule.kind must be "every"');
  const { everyMs } = schedule;
  if (!Number.isInteger(everyMs) || everyMs < MIN_EVERY_MS || everyMs > MAX_EVERY_MS) {
    throw new CronInputError(`schedule.everyMs must be an integer from ${MIN_EVERY_MS} to ${MAX_EVERY_MS}`);
  }
  if (body.message !== undefined && body.message !== null) {
    if (typeof body.message !== "string" || body.message.trim() === "") {
      throw new CronInputError("message must be a non-empty string");
    }
    if (body.message.length > MAX_MESSAGE_LENGTH) {
      throw new CronInputError(`message must be at most ${MAX_MESSAGE_LENGTH} characters`);
    }
  }
  return { enabled: body.enabled, everyMs, message: body.message ?? null };
}

/** A job as the API shows it. */
export function publicJob(job) {
  return {
    id: job.id,
    name: job.name,
    enabled: job.enabled,
    schedule: { kind: "every", everyMs: job.schedule.everyMs },
    message: job.message,
    lastRunAt: job.lastRunAt,
    nextRunAt: job.nextRunAt,
    lastStatus: job.lastStatus,
    lastError: job.lastError,
  };
}

export class CronScheduler {
  /**
   * @param {import("./state.mjs").StateStore} store
   * @param {(input: {request: object, sessionKey: string, signal: AbortSignal}) => Promise<unknown>} chat
   * @param {{info: Function, error: Function}} log
   */
  constructor(store, chat, log) {
    this.store = store;
    this.chat = chat;
    this.log = log;
    /** @type {Map<string, NodeJS.Timeout>} */
    this.timers = new Map();
    /** Names of jobs with a run in progress (a run that is still going when the next is due skips it). */
    this.running = new Set();
    this.stopping = new AbortController();
  }

  /** Arms every enabled job loaded from the state; an overdue one runs now. */
  start() {
    for (const job of this.store.cron.values()) this.arm(job);
  }

  list() {
    return [...this.store.cron.values()].sort((a, b) => a.name.localeCompare(b.name)).map(publicJob);
  }

  /** Creates or replaces a job; an unchanged enabled schedule keeps its next run time. */
  upsert(name, input, now = Date.now()) {
    const existing = this.store.cron.get(name);
    const keepsNextRun =
      existing?.enabled && input.enabled && existing.schedule.everyMs === input.everyMs && existing.nextRunAt;
    const job = {
      id: existing?.id ?? `cron_${randomBytes(8).toString("hex")}`,
      name,
      enabled: input.enabled,
      schedule: { kind: "every", everyMs: input.everyMs },
      message: input.message,
      lastRunAt: existing?.lastRunAt ?? null,
      nextRunAt: input.enabled
        ? keepsNextRun
          ? existing.nextRunAt
          : new Date(now + input.everyMs).toISOString()
        : null,
      lastStatus: existing?.lastStatus ?? null,
      lastError: existing?.lastError ?? null,
      createdAt: existing?.createdAt ?? new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
    };
    this.store.cron.set(name, job);
    this.arm(job);
    this.store.save();
    return publicJob(job);
  }

  /** Deletes a job; false when there is none of that name. */
  remove(name) {
    if (!this.store.cron.has(name)) return false;
    this.disarm(name);
    this.store.cron.delete(name);
    this.store.save();
    return true;
  }

  /** Stops every timer and aborts runs in progress (shutdown). */
  stop() {
    this.stopping.abort();
    for (const name of [...this.timers.keys()]) this.disarm(name);
  }

  disarm(name) {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
  }

  arm(job) {
    this.disarm(job.name);
    if (!job.enabled || this.stopping.signal.aborted) return;
    const due = job.nextRunAt ? Date.parse(job.nextRunAt) : Date.now() + job.schedule.everyMs;
    const delay = Math.min(Math.max(0, due - Date.now()), MAX_EVERY_MS);
    this.timers.set(
      job.name,
      setTimeout(() => this.fire(job.name), delay),
    );
  }

  /** One due run: the next one is scheduled first (fixed rate), then the message goes through the chat. */
  async fire(name) {
    const job = this.store.cron.get(name);
    if (!job?.enabled) return;
    const startedAt = Date.now();
    job.nextRunAt = new Date(startedAt + job.schedule.everyMs).toISOString();
    this.arm(job);
    if (this.running.has(name)) {
      this.log.info("cron run skipped: the previous run is still going", { job: name });
      this.store.save();
      return;
    }
    job.lastRunAt = new Date(startedAt).toISOString();
    this.store.save();
    if (!job.message) return;

    this.running.add(name);
    let outcome = { lastStatus: "ok", lastError: null };
    try {
      await this.chat({
        request: { messages: [{ role: "user", content: job.message }] },
        sessionKey: `cron:${name}`,
        signal: this.stopping.signal,
      });
      this.log.info("cron run done", { job: name });
    } catch (err) {
      outcome = { lastStatus: "error", lastError: err.message };
      this.log.error("cron run failed", { job: name, error: err.message });
    } finally {
      this.running.delete(name);
    }
    // The job may have been replaced or deleted meanwhile: only the same job records its outcome.
    const current = this.store.cron.get(name);
    if (current?.id === job.id) {
      Object.assign(current, outcome);
      this.store.save();
    }
  }
}
