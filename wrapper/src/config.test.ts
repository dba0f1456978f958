import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRE_TOOL_USE_HOOK, HOOK_FLAG, loadWrapperConfig } from "./config";

const HOOK = fileURLToPath(new URL("../../backend/hooks/pre-tool-use.mjs", import.meta.url));
const COMMAND = "node dev-runtime/server.mjs --port {port}";

describe("loadWrapperConfig: the pre-tool-use hook", () => {
  it("starts the runtime without a hook when PLATFORM_CLASSIFY_URL is unset", () => {
    const config = loadWrapperConfig({ RUNTIME_COMMAND: COMMAND, RUNTIME_PORT: "18790" });
    expect(config.runtimeArgv).toEqual(["node", "dev-runtime/server.mjs", "--port", "18790"]);
    expect(config.preToolUseHook).toBeNull();
  });

  it("adds --hook-pre-tool-use <the platform's hook> when PLATFORM_CLASSIFY_URL is set", () => {
    expect(DEFAULT_PRE_TOOL_USE_HOOK).toBe(HOOK);
    expect(existsSync(HOOK)).toBe(true);
    const config = loadWrapperConfig({
      RUNTIME_COMMAND: COMMAND,
      RUNTIME_PORT: "18790",
      PLATFORM_CLASSIFY_URL: "http://127.0.0.1:4000/api/hooks/classify",
    });
    expect(config.runtimeArgv).toEqual([
      "node",
      "dev-runtime/server.mjs",
      "--port",
      "18790",
      HOOK_FLAG,
      HOOK,
    ]);
    expect(config.preToolUseHook).toBe(HOOK);
    // The default OpenClaw command gets it too.
    const openclaw = loadWrapperConfig({ PLATFORM_CLASSIFY_URL: "http://backend:4000/api/hooks/classify" });
    expect(openclaw.runtimeArgv.slice(0, 3)).toEqual(["openclaw", "gateway", "run"]);
    expect(openclaw.runtimeArgv.slice(-2)).toEqual([HOOK_FLAG, HOOK]);
  });

  it("keeps a hook RUNTIME_COMMAND names itself, once", () => {
    for (const given of [`${HOOK_FLAG} ${HOOK}`, `${HOOK_FLAG}=${HOOK}`]) {
      const config = loadWrapperConfig({
        RUNTIME_COMMAND: `${COMMAND} ${given}`,
        PLATFORM_CLASSIFY_URL: "http://127.0.0.1:4000/api/hooks/classify",
      });
      expect(config.runtimeArgv.filter((arg) => arg.startsWith(HOOK_FLAG))).toHaveLength(1);
      expect(config.preToolUseHook).toBe(HOOK);
    }
  });

  it("refuses to start without the hook script, or with a bad classify URL (fail-closed)", () => {
    const missing = () =>
      loadWrapperConfig({
        PLATFORM_CLASSIFY_URL: "http://127.0.0.1:4000/api/hooks/classify",
        PRE_TOOL_USE_HOOK: "/nonexistent/pre-tool-use.mjs",
      });
    expect(missing).toThrow(ConfigError);
    expect(missing).toThrow(/PRE_TOOL_USE_HOOK: "\/nonexistent\/pre-tool-use.mjs" does not exist/);
    expect(() => loadWrapperConfig({ PLATFORM_CLASSIFY_URL: "not a url" })).toThrow(/PLATFORM_CLASSIFY_URL/);
  });
});
