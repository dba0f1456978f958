/**
 * The last check before an environment leaves the platform for an agent's service: no variable named like
 * a platform secret (`PLATFORM_SECRET_NAMES`) and no value equal to one of the platform's own secret values.
 * Every driver runs it on create and setEnv, so a mistake upstream fails loudly instead of leaking.
 */
import { PLATFORM_SECRET_NAMES } from "@svc/common";
import { HostingError } from "./types";

/** The configuration fields whose values are platform secrets. */
export interface PlatformSecretsConfig {
  DATABASE_URL?: string;
  INTERNAL_API_KEY?: string;
  HMAC_SECRET?: string;
  DATA_ENCRYPTION_KEY?: string;
  AI_PROVIDER_KEY?: string;
  HOSTING_API_KEY?: string;
  WATCHDOG_BOT_TOKEN?: string;
}

/** The non-empty secret values of the platform's configuration. */
export function platformSecretValues(config: PlatformSecretsConfig): string[] {
  return [
    config.DATABASE_URL,
    config.INTERNAL_API_KEY,
    config.HMAC_SECRET,
    config.DATA_ENCRYPTION_KEY,
    config.AI_PROVIDER_KEY,
    config.HOSTING_API_KEY,
    config.WATCHDOG_BOT_TOKEN,
  ].filter((value): value is string => typeof value === "string" && value.length > 0);
}

const SECRET_NAMES = new Set<string>(PLATFORM_SECRET_NAMES);

/** Throws when `env` carries a platform secret by name or by value (the message names the variable only). */
export function assertAgentEnv(env: Record<string, string>, secretValues: readonly string[]): void {
  for (const [name, value] of Object.entries(env)) {
    if (SECRET_NAMES.has(name.toUpperCase()))
      throw new HostingError("platform", `refusing to give an agent the platform secret variable ${name}`);
    if (secretValues.includes(value))
      throw new HostingError("platform", `refusing to give an agent a platform secret value (in ${name})`);
  }
}
