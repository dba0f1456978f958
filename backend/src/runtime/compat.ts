/**
 * The configuration fixes of the compatibility check (spec "Compatibility check"). Each is pure and
 * idempotent: applied to its own output it changes nothing, so the check reports an empty list once every
 * fix is in place.
 *
 * - `plugin-config-migration`: older runtime configs list plugins as an array (`plugins: ["memory",
 *   {id: "browser", enabled: false, config: {…}}]`); current runtimes read `plugins.entries`, an object keyed
 *   by plugin id (`{entries: {memory: {enabled: true}, browser: {enabled: false, config: {…}}}}`). Items
 *   without an id (or `name`) cannot be keyed and are dropped.
 * - `pairing-scopes`: `gateway.pairing.scopes` must include the operator scopes the platform relies on
 *   (reading and writing through the gateway, and approving device pairings from the dashboard); existing
 *   scopes are kept, the missing ones appended.
 */

export type ConfigObject = Record<string, unknown>;

export const PLUGIN_CONFIG_MIGRATION = "plugin-config-migration";
export const PAIRING_SCOPES_FIX = "pairing-scopes";
export const GATEWAY_TOKEN_FIX = "gateway-token";

/** Operator scopes every agent's gateway must grant to paired devices. */
export const REQUIRED_PAIRING_SCOPES = ["operator.read", "operator.write", "operator.pairing"] as const;

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

/** `gateway.pairing.scopes` ⊇ REQUIRED_PAIRING_SCOPES. */
export function ensurePairingScopes(config: ConfigObject): ConfigFix {
  const gateway = isObject(config.gateway) ? config.gateway : {};
  const pairing = isObject(gateway.pairing) ? gateway.pairing : {};
  const current = Array.isArray(pairing.scopes)
    ? pairing.scopes.filter((s): s is string => typeof s === "string")
    : [];
  const missing = REQUIRED_PAIRING_SCOPES.filter((scope) => !current.includes(scope));
  if (missing.length === 0 && Array.isArray(pairing.scopes) && current.length === pairing.scopes.length) {
    return { changed: false, config };
  }
  return {
    changed: true,
    config: {
      ...config,
      gateway: { ...gateway, pairing: { ...pairing, scopes: [...current, ...missing] } },
    },
  };
}

/** Runs the configuration fixes in order; `applied` names those that changed something. */
export function applyConfigFixes(config: ConfigObject): { applied: string[]; config: ConfigObject } {
  const applied: string[] = [];
  let next = config;
  for (const [name, fix] of [
    [PLUGIN_CONFIG_MIGRATION, migratePluginConfig],
    [PAIRING_SCOPES_FIX, ensurePairingScopes],
  ] as const) {
    const result = fix(next);
    if (result.changed) {
      applied.push(name);
      next = result.config;
    }
  }
  return { applied, config: next };
}
