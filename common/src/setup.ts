/**
 * What the setup checklist needs of the backend's configuration: the backend answers it at `GET /api/setup`
 * (internal key) and the web's `GET /api/setup` reads it. Facts only, never a secret's value: whether a
 * variable is set, the driver's last ping, whether the managed runtime is installed.
 */
import { z } from "zod";

export const HOSTING_DRIVERS = ["local", "railway", "docker", "kubernetes"] as const;

export const backendSetupSchema = z
  .object({
    aiProvider: z.object({
      /** AI_PROVIDER_KEY is set (AI_PROVIDER_URL has a default). */
      configured: z.boolean(),
      /** AI_PROVIDER, a label. */
      provider: z.string(),
      /** AI_PROVIDER_URL without credentials or query. */
      url: z.string(),
      defaultModel: z.string(),
    }),
    hosting: z.object({
      driver: z.enum(HOSTING_DRIVERS),
      /** The driver answered its last ping (cached 30 s, like `/health`'s provisioning). */
      ready: z.boolean(),
      /** Why it is not ready (the ping's error). */
      reason: z.string().nullable(),
      /** The driver's required variables that are unset. */
      missing: z.array(z.string()),
    }),
    runtime: z.discriminatedUnion("kind", [
      /** The local driver's managed OpenClaw: installed under RUNTIMES_DIR, or installed by the first deploy. */
      z.object({ kind: z.literal("managed"), version: z.string(), installed: z.boolean(), dir: z.string() }),
      /** The local driver runs LOCAL_RUNTIME_COMMAND as given (not shown: it may carry a token). */
      z.object({ kind: z.literal("command") }),
      /** Docker and Railway run AGENT_IMAGE. */
      z.object({ kind: z.literal("image"), image: z.string() }),
    ]),
  })
  .meta({ id: "BackendSetup" });

export type BackendSetup = z.infer<typeof backendSetupSchema>;

/** A URL as it may be shown: scheme, host, port and path, without user, password, query or fragment. */
export function urlWithoutSecrets(url: string): string {
  try {
    const parsed = new URL(url);
    const path = parsed.pathname === "/" ? "" : parsed.pathname;
    return `${parsed.protocol}//${parsed.host}${path}`;
  } catch {
    return "(not a URL)";
  }
}
