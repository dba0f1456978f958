import { describe, expect, it } from "vitest";
import { applyPlatformConfig, PERMISSION_PLUGIN_ID, type PlatformSettings } from "./managed-config";

// biome-ignore lint/suspicious/noExplicitAny: test reads and edits of nested JSON
type Json = Record<string, any>;

const SETTINGS: PlatformSettings = {
  backendUrl: "http://127.0.0.1:4000/",
  classifyUrl: "http://127.0.0.1:4000/api/hooks/classify",
  model: "openai/gpt-4o-mini",
  pluginDir: "/srv/wrapper/openclaw-plugin",
  workspace: "/data/agent/state/workspace",
  logFile: "/data/agent/state/logs/openclaw.log",
  runtimePort: 18789,
  permissionWaitSeconds: 300,
};

describe("applyPlatformConfig", () => {
  it("fills an empty configuration with the platform's keys, and changes nothing the second time", () => {
    const first = applyPlatformConfig({}, SETTINGS);
    expect(first.config).toMatchObject({
      gateway: {
        mode: "local",
        auth: { mode: "token" },
        http: { endpoints: { chatCompletions: { enabled: true } } },
        reload: { mode: "off" },
      },
      discovery: { mdns: { mode: "off" } },
      update: { checkOnStart: false },
      models: {
        providers: {
          platform: {
            baseUrl: "http://127.0.0.1:4000/api/ai",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: OpenClaw's own substitution syntax
            apiKey: "${OPENCLAW_GATEWAY_TOKEN}",
            api: "openai-completions",
          },
        },
      },
      agents: { defaults: { model: { primary: "platform/openai/gpt-4o-mini" } } },
      plugins: {
        load: { paths: ["/srv/wrapper/openclaw-plugin"] },
        entries: {
          [PERMISSION_PLUGIN_ID]: {
            enabled: true,
            config: { classifyUrl: SETTINGS.classifyUrl, waitSeconds: 300 },
          },
          browser: { enabled: false },
        },
      },
      tools: { deny: ["gateway"] },
    });
    expect(first.changed.length).toBeGreaterThan(10);
    expect(JSON.stringify(first.config)).not.toContain("aiProvider");
    const second = applyPlatformConfig(first.config, SETTINGS);
    expect(second.changed).toEqual([]);
    expect(second.config).toEqual(first.config);
  });

  it("puts back what a user's configuration removed or turned off, and keeps the user's choices", () => {
    const { config } = applyPlatformConfig({}, SETTINGS);
    const edited = structuredClone(config) as Json;
    edited.plugins.entries[PERMISSION_PLUGIN_ID].enabled = false;
    edited.plugins.deny = [PERMISSION_PLUGIN_ID];
    edited.plugins.enabled = false;
    edited.tools.deny = ["browser"];
    edited.gateway.auth.token = "literal-token-in-the-file";
    edited.agents.defaults.model = { primary: "platform/anthropic/claude-sonnet" };
    edited.plugins.entries.browser = { enabled: true };
    const fixed = applyPlatformConfig(edited, SETTINGS);
    expect(fixed.changed).toEqual(
      expect.arrayContaining([
        `plugins.entries.${PERMISSION_PLUGIN_ID}`,
        "plugins.deny",
        "plugins.enabled",
        "tools.deny",
        "gateway.auth.token",
      ]),
    );
    const out = fixed.config as Json;
    expect(out.plugins.entries[PERMISSION_PLUGIN_ID].enabled).toBe(true);
    expect(out.plugins.deny).toEqual([]);
    expect(out.tools.deny).toEqual(["browser", "gateway"]);
    expect(out.gateway.auth).toEqual({ mode: "token" });
    // Choices that are the user's to make stay.
    expect(out.agents.defaults.model).toEqual({ primary: "platform/anthropic/claude-sonnet" });
    expect(out.plugins.entries.browser).toEqual({ enabled: true });
    // The input is not changed.
    expect(edited.tools.deny).toEqual(["browser"]);
  });
});
