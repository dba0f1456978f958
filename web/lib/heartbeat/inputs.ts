import { z } from "zod";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Heartbeats run at most every minute and at least once a day. */
export const MIN_HEARTBEAT_MS = MINUTE_MS;
export const MAX_HEARTBEAT_MS = 24 * HOUR_MS;

const FREQUENCY = /^([1-9]\d{0,3})([mh])$/;
const FREQUENCY_MESSAGE = "frequency must be minutes or hours like 15m, 30m or 1h (1m to 24h)";

/** `30m` → 1 800 000; null when it is not a frequency within bounds. */
export function frequencyToMs(frequency: string): number | null {
  const match = FREQUENCY.exec(frequency);
  if (!match) return null;
  const ms = Number(match[1]) * (match[2] === "h" ? HOUR_MS : MINUTE_MS);
  return ms >= MIN_HEARTBEAT_MS && ms <= MAX_HEARTBEAT_MS ? ms : null;
}

/** 3 600 000 → `1h`, 1 800 000 → `30m`; null for an interval that is not whole minutes. */
export function msToFrequency(ms: number | null): string | null {
  if (ms === null || ms <= 0 || ms % MINUTE_MS !== 0) return null;
  return ms % HOUR_MS === 0 ? `${ms / HOUR_MS}h` : `${ms / MINUTE_MS}m`;
}

/** A frequency, normalized (`60m` becomes `1h`). */
export const frequencySchema = z
  .string({ error: (i) => (i.input === undefined ? "frequency is required" : "frequency must be a string") })
  .trim()
  .refine((f) => frequencyToMs(f) !== null, FREQUENCY_MESSAGE)
  .transform((f) => msToFrequency(frequencyToMs(f)) as string);

/** `PUT /api/heartbeat?agentId=` body. */
export const heartbeatBody = z.strictObject(
  {
    enabled: z.boolean({
      error: (i) => (i.input === undefined ? "enabled is required" : "enabled must be true or false"),
    }),
    frequency: frequencySchema,
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys.join(", ")}` : undefined,
  },
);
export type HeartbeatBody = z.infer<typeof heartbeatBody>;

/** The `agentId` query parameter every heartbeat request carries. */
export const agentIdQuery = z
  .string({ error: "agentId is required" })
  .trim()
  .min(1, "agentId is required")
  .max(100, "agentId is too long");
