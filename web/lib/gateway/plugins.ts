/**
 * The gateway's plugin registry, from configuration: each plugin
 * has an id, a name, the `auth` flag (false for every built-in one), whether it streams, a per-call price and
 * its upstream. `agent` and `generate-text` default to the platform's AI provider through the backend's
 * `POST /api/ai/gateway` (internal key); `tts` and `stt` have no default.
 */
import type { WebConfig } from "../infra/config";
import { usdToMicros } from "./pricing";

export const PLUGIN_IDS = ["agent", "generate-text", "tts", "stt"] as const;
export type PluginId = (typeof PLUGIN_IDS)[number];
export const DEFAULT_PLUGIN: PluginId = "agent";

export interface PluginUpstream {
  url: string;
  /** Sent with every call (the backend's internal key for the default AI upstream). */
  headers: Record<string, string>;
}

export interface Plugin {
  id: PluginId;
  name: string;
  /** A plugin with `auth` needs a session cookie, a verified MPP credential or an active payment session. */
  auth: boolean;
  streaming: boolean;
  priceMicros: bigint;
  /** null: no upstream configured (the call answers 502 `no_plugin`). */
  upstream: PluginUpstream | null;
  /** Its upstream is the platform's AI provider (through the backend), so it works only when that is set. */
  platformAi: boolean;
}

/** The backend route the AI plugins default to. */
export const BACKEND_AI_GATEWAY_PATH = "/api/ai/gateway";

type PluginConfig = Pick<
  WebConfig,
  | "BACKEND_URL"
  | "INTERNAL_API_KEY"
  | "GATEWAY_PLUGIN_AGENT_URL"
  | "GATEWAY_PLUGIN_GENERATE_TEXT_URL"
  | "GATEWAY_PLUGIN_TTS_URL"
  | "GATEWAY_PLUGIN_STT_URL"
  | "GATEWAY_PLUGIN_AGENT_PRICE_USD"
  | "GATEWAY_PLUGIN_GENERATE_TEXT_PRICE_USD"
  | "GATEWAY_PLUGIN_TTS_PRICE_USD"
  | "GATEWAY_PLUGIN_STT_PRICE_USD"
  | "GATEWAY_AUTH_PLUGINS"
>;

const registries = new WeakMap<object, ReadonlyMap<string, Plugin>>();

/** The registry of a configuration (built once per configuration object). */
export function pluginRegistry(config: PluginConfig): ReadonlyMap<string, Plugin> {
  const known = registries.get(config);
  if (known) return known;
  const backendAi = (): PluginUpstream | null =>
    config.INTERNAL_API_KEY
      ? {
          url: `${config.BACKEND_URL.replace(/\/+$/, "")}${BACKEND_AI_GATEWAY_PATH}`,
          headers: { authorization: `Bearer ${config.INTERNAL_API_KEY}` },
        }
      : null;
  const configured = (url: string | undefined): PluginUpstream | null => (url ? { url, headers: {} } : null);
  const plugins: Plugin[] = [
    {
      id: "agent",
      name: "Agent (orchestrator)",
      auth: false,
      streaming: true,
      priceMicros: usdToMicros(config.GATEWAY_PLUGIN_AGENT_PRICE_USD),
      upstream: configured(config.GATEWAY_PLUGIN_AGENT_URL) ?? backendAi(),
      platformAi: !config.GATEWAY_PLUGIN_AGENT_URL,
    },
    {
      id: "generate-text",
      name: "Generate text",
      auth: false,
      streaming: true,
      priceMicros: usdToMicros(config.GATEWAY_PLUGIN_GENERATE_TEXT_PRICE_USD),
      upstream: configured(config.GATEWAY_PLUGIN_GENERATE_TEXT_URL) ?? backendAi(),
      platformAi: !config.GATEWAY_PLUGIN_GENERATE_TEXT_URL,
    },
    {
      id: "tts",
      name: "Text to speech",
      auth: false,
      streaming: false,
      priceMicros: usdToMicros(config.GATEWAY_PLUGIN_TTS_PRICE_USD),
      upstream: configured(config.GATEWAY_PLUGIN_TTS_URL),
      platformAi: false,
    },
    {
      id: "stt",
      name: "Speech to text",
      auth: false,
      streaming: false,
      priceMicros: usdToMicros(config.GATEWAY_PLUGIN_STT_PRICE_USD),
      upstream: configured(config.GATEWAY_PLUGIN_STT_URL),
      platformAi: false,
    },
  ];
  const withAuth = new Set(config.GATEWAY_AUTH_PLUGINS);
  const registry = new Map(plugins.map((p) => [p.id, { ...p, auth: withAuth.has(p.id) }]));
  registries.set(config, registry);
  return registry;
}
