import { z } from "zod";

/** The capabilities the setup checklist lists, in its order. */
export const CAPABILITY_IDS = [
  "ai_provider",
  "hosting",
  "agent_runtime",
  "mail",
  "card_payments",
  "mpp",
  "identity_provider",
] as const;
export type CapabilityId = (typeof CAPABILITY_IDS)[number];

/**
 * `ready` works; `attention` works with a caveat (mail written to files, a runtime still to install, card
 * credit without the webhook); `off` is not configured or not answering; `unknown` could not be checked.
 */
export const capabilityState = z.enum(["ready", "attention", "off", "unknown"]);
export type CapabilityState = z.infer<typeof capabilityState>;

/** One variable of a capability: whether it is set, never its value (only a non-secret current value). */
export const setupVariable = z.object({
  name: z.string(),
  /** The service that reads it. */
  service: z.enum(["web", "backend"]),
  /** The capability needs it (else it is optional). */
  required: z.boolean(),
  /** null: the web cannot tell (a backend variable the backend does not report). */
  isSet: z.boolean().nullable(),
  /** A current value that is not a secret (a URL without credentials, a driver, an image), or null. */
  value: z.string().nullable(),
  meaning: z.string(),
});
export type SetupVariable = z.infer<typeof setupVariable>;

export const capabilityDetail = z.object({
  id: z.enum(CAPABILITY_IDS),
  name: z.string(),
  state: capabilityState,
  /** What works now, or what does not and why, in a sentence or two. */
  summary: z.string(),
  /** What to do, when anything is to be done. */
  action: z.string().nullable(),
  /** A command that does it (instead of variables), e.g. `npm run runtime:install`. */
  command: z.string().nullable(),
  variables: z.array(setupVariable),
  /** Whether the change needs a restart of the platform (services read their variables once, at start). */
  restartNeeded: z.boolean(),
});
export type CapabilityDetail = z.infer<typeof capabilityDetail>;

/** What is not available on this server, in plain words (`backend`: the backend does not answer). */
export const unavailableFeature = z.object({
  capability: z.enum([...CAPABILITY_IDS, "backend"]),
  message: z.string(),
});
export type UnavailableFeature = z.infer<typeof unavailableFeature>;

export const setupStatus = z
  .object({
    role: z.enum(["admin", "user"]),
    /** Per capability: false when it is known to be off; pages then say so and disable the action. */
    available: z.object({
      ai_provider: z.boolean(),
      hosting: z.boolean(),
      agent_runtime: z.boolean(),
      mail: z.boolean(),
      card_payments: z.boolean(),
      mpp: z.boolean(),
      identity_provider: z.boolean(),
    } satisfies Record<CapabilityId, z.ZodBoolean>),
    unavailable: z.array(unavailableFeature),
    /** Admins only: where variables are set. */
    where: z.string().optional(),
    /** Admins only: every capability with its state and what to set. */
    capabilities: z.array(capabilityDetail).optional(),
  })
  .meta({ id: "SetupStatus" });
export type SetupStatus = z.infer<typeof setupStatus>;
