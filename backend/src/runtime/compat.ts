/**
 * The configuration fixes of the compatibility check, each pure and idempotent (applied to its own output it
 * changes nothing), so the check reports an empty list once every fix is in place.
 * - `plugin-config-migration`: older configs list plugins as an array; current runtimes read
 *   `plugins.entries`, an object keyed by plugin id. Items without an id (or `name`) cannot be keyed: dropped.
 * - `legacy-platform-keys`: earlier platform versions wrote `gateway.pairing.scopes` and a top-level
 *   `aiProvider`, which OpenClaw's `config validate` refuses (the next start exits "Config invalid"); both go,
 *   with nothing in their place (OpenClaw grants operator scopes per device at pairing time).
 */

export type ConfigObject = Record<string, unknown>;

export const PLUGIN_CONFIG_MIGRATION = "plugin-config-migration";
export const LEGACY_KEYS_FIX = "legacy-platform-keys";
export const GATEWAY_TOKEN_FIX = "gateway-token";

function isObject(value: unknown): value is ConfigObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface ConfigFix {
  changed: boolean;
  config: ConfigObject;
}

/** Legacy `plugins` array → `plugins.entries` object. */
export function migratePluginConfig(config: ConfigObject): ConfigFix {
  if (!Array.isArray(config.plugins)) return { changed: false, config };
  const entries: Record<string, ConfigObject> = {};
  for (const item of config.plugins) {
    if (typeof item === "string" && item.trim()) {
      entries[item.trim()] = { enabled: true };
      continue;
    }
    if (!isObject(item)) continue;
    const id = typeof item.id === "string" ? item.id : typeof item.name === "string" ? item.name : null;
    if (!id?.trim()) continue;
    entries[id.trim()] = {
      enabled: item.enabled !== false,
      ...(item.config !== undefined ? { config: item.config } : {}),
    };
  }
  return { changed: true, config: { ...config, plugins: { entries } } };
}

/** Without the keys earlier platform versions wrote that OpenClaw refuses. */
export function removeLegacyPlatformKeys(config: ConfigObject): ConfigFix {
  const gateway = isObject(config.gateway) ? config.gateway : null;
  const hasPairing = gateway !== null && Object.hasOwn(gateway, "pairing");
  const hasProvider = Object.hasOwn(config, "aiProvider");
  if (!hasPairing && !hasProvider) return { changed: false, config };
  const { aiProvider: _provider, ...rest } = config;
  if (hasPairing && gateway) {
    const { pairing: _pairing, ...otherGateway } = gateway;
    rest.gateway = otherGateway;
  }
  return { changed: true, config: rest };
}

/** Runs the configuration fixes in order; `applied` names those that changed something. */
export function applyConfigFixes(config: ConfigObject): { applied: string[]; config: ConfigObject } {
  const applied: string[] = [];
  let next = config;
  for (const [name, fix] of [
    [PLUGIN_CONFIG_MIGRATION, migratePluginConfig],
    [LEGACY_KEYS_FIX, removeLegacyPlatformKeys],
  ] as const) {
    const result = fix(next);
    if (result.changed) {
      applied.push(name);
      next = result.config;
    }
  }
  return { applied, config: next };
}
