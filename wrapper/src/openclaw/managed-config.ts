/**
 * The part of OpenClaw's `openclaw.json` the platform owns, every key checked against OpenClaw 2026.4.11's
 * `openclaw config validate --json` (an unknown key makes the file invalid and the next start exit, so nothing
 * else is written). The gateway token comes from the runtime's environment, never the file; the control UI's
 * allowed origins are set (OpenClaw writes a default itself, changing the file at every start); reload mode is
 * off (the wrapper reloads after a write, SIGUSR1); no mDNS advertising or update check. The model provider is
 * the platform's AI proxy keyed with `${OPENCLAW_GATEWAY_TOKEN}` (OpenClaw substitutes it), so provider keys,
 * budgets and model rules stay on the platform. The permission plugin is loaded with the classify URL;
 * `tools.deny` includes `gateway` (the agent may not rewrite its own configuration). Enforced keys are put back
 * on every write (a user's configuration cannot remove the plugin); defaults only fill what is missing.
 */
import { isPlainObject } from "../runtime/config-file";

export type ConfigObject = Record<string, unknown>;

export const PLATFORM_PROVIDER_ID = "platform";
export const PERMISSION_PLUGIN_ID = "platform-guard";

export interface PlatformSettings {
  /** The platform backend (`PLATFORM_BACKEND_URL`); the AI proxy is `<backend>/api/ai`. */
  backendUrl: string;
  /** `POST /api/hooks/classify` on the backend. */
  classifyUrl: string;
  /** The provider's model id (`AGENT_MODEL`, e.g. `openai/gpt-4o-mini`). */
  model: string;
  /** The permission plugin's folder. */
  pluginDir: string;
  workspace: string;
  logFile: string;
  runtimePort: number;
  /** How long the plugin waits for a person's decision on a dangerous call. */
  permissionWaitSeconds: number;
}

/** Context window and output cap announced for the platform model (OpenClaw needs both; conservative). */
const MODEL_CONTEXT_WINDOW = 128_000;
const MODEL_MAX_TOKENS = 8_192;

function providerEntry(settings: PlatformSettings): ConfigObject {
  return {
    baseUrl: `${settings.backendUrl.replace(/\/+$/, "")}/api/ai`,
    // OpenClaw substitutes `${VAR}` itself: the token stays out of the file.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: OpenClaw's own substitution syntax
    apiKey: "${OPENCLAW_GATEWAY_TOKEN}",
    api: "openai-completions",
    models: [
      {
        id: settings.model,
        name: settings.model,
        reasoning: false,
        input: ["text"],
        // The platform bills by its own budgets; OpenClaw's cost display stays at zero.
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: MODEL_CONTEXT_WINDOW,
        maxTokens: MODEL_MAX_TOKENS,
      },
    ],
  };
}

function objectAt(parent: ConfigObject, key: string): ConfigObject {
  const value = parent[key];
  if (isPlainObject(value)) return value;
  const created: ConfigObject = {};
  parent[key] = created;
  return created;
}

function setIfDifferent(parent: ConfigObject, key: string, value: unknown, changed: string[], path: string) {
  if (JSON.stringify(parent[key]) !== JSON.stringify(value)) {
    parent[key] = value;
    changed.push(path);
  }
}

function setIfMissing(parent: ConfigObject, key: string, value: unknown, changed: string[], path: string) {
  if (parent[key] === undefined) {
    parent[key] = value;
    changed.push(path);
  }
}

function addToList(parent: ConfigObject, key: string, item: string, changed: string[], path: string) {
  const list = Array.isArray(parent[key]) ? (parent[key] as unknown[]) : [];
  if (!list.includes(item)) {
    parent[key] = [...list, item];
    changed.push(path);
  }
}

/**
 * `config` with the platform's keys in place (a deep copy; the input is not changed) and the paths that
 * had to change. Applied to its own output it changes nothing.
 */
export function applyPlatformConfig(
  config: ConfigObject,
  settings: PlatformSettings,
): { config: ConfigObject; changed: string[] } {
  const next = structuredClone(config);
  const changed: string[] = [];

  const gateway = objectAt(next, "gateway");
  setIfDifferent(gateway, "mode", "local", changed, "gateway.mode");
  const auth = objectAt(gateway, "auth");
  setIfDifferent(auth, "mode", "token", changed, "gateway.auth.mode");
  // The token lives in the runtime's environment only.
  if (auth.token !== undefined) {
    delete auth.token;
    changed.push("gateway.auth.token");
  }
  const endpoints = objectAt(objectAt(gateway, "http"), "endpoints");
  setIfDifferent(
    objectAt(endpoints, "chatCompletions"),
    "enabled",
    true,
    changed,
    "gateway.http.endpoints.chatCompletions.enabled",
  );
  // The wrapper reloads the runtime itself after each write (SIGUSR1, confirmed): OpenClaw's own file
  // watcher would restart the gateway a second time, seconds later, under the wrapper's connections.
  setIfDifferent(objectAt(gateway, "reload"), "mode", "off", changed, "gateway.reload.mode");
  setIfMissing(
    objectAt(gateway, "controlUi"),
    "allowedOrigins",
    [`http://localhost:${settings.runtimePort}`, `http://127.0.0.1:${settings.runtimePort}`],
    changed,
    "gateway.controlUi.allowedOrigins",
  );

  setIfDifferent(
    objectAt(objectAt(next, "discovery"), "mdns"),
    "mode",
    "off",
    changed,
    "discovery.mdns.mode",
  );
  setIfDifferent(objectAt(next, "update"), "checkOnStart", false, changed, "update.checkOnStart");

  const models = objectAt(next, "models");
  setIfMissing(models, "mode", "merge", changed, "models.mode");
  setIfDifferent(
    objectAt(models, "providers"),
    PLATFORM_PROVIDER_ID,
    providerEntry(settings),
    changed,
    `models.providers.${PLATFORM_PROVIDER_ID}`,
  );

  const defaults = objectAt(objectAt(next, "agents"), "defaults");
  setIfMissing(
    defaults,
    "model",
    { primary: `${PLATFORM_PROVIDER_ID}/${settings.model}` },
    changed,
    "agents.defaults.model",
  );
  setIfMissing(defaults, "workspace", settings.workspace, changed, "agents.defaults.workspace");

  const plugins = objectAt(next, "plugins");
  if (plugins.enabled === false) {
    plugins.enabled = true;
    changed.push("plugins.enabled");
  }
  addToList(objectAt(plugins, "load"), "paths", settings.pluginDir, changed, "plugins.load.paths");
  const entries = objectAt(plugins, "entries");
  setIfDifferent(
    entries,
    PERMISSION_PLUGIN_ID,
    {
      enabled: true,
      config: { classifyUrl: settings.classifyUrl, waitSeconds: settings.permissionWaitSeconds },
    },
    changed,
    `plugins.entries.${PERMISSION_PLUGIN_ID}`,
  );
  setIfMissing(entries, "browser", { enabled: false }, changed, "plugins.entries.browser");
  if (Array.isArray(plugins.deny) && plugins.deny.includes(PERMISSION_PLUGIN_ID)) {
    plugins.deny = plugins.deny.filter((id) => id !== PERMISSION_PLUGIN_ID);
    changed.push("plugins.deny");
  }
  if (Array.isArray(plugins.allow) && !plugins.allow.includes(PERMISSION_PLUGIN_ID)) {
    plugins.allow = [...plugins.allow, PERMISSION_PLUGIN_ID];
    changed.push("plugins.allow");
  }

  addToList(objectAt(next, "tools"), "deny", "gateway", changed, "tools.deny");
  setIfMissing(objectAt(next, "logging"), "file", settings.logFile, changed, "logging.file");

  return { config: next, changed };
}
