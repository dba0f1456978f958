import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@svc/common";
import { describe, expect, it } from "vitest";
import { DEFAULT_PLUGIN_DIR, loadWrapperConfig } from "./config";
import { runtimeEnv } from "./runtime/supervisor";

const COMMAND = "node fake-runtime.mjs --port {port}";
const OPENCLAW = {
  RUNTIME_PORT: "18790",
  OPENCLAW_GATEWAY_TOKEN: "gw-token",
  PLATFORM_BACKEND_URL: "http://127.0.0.1:4000/",
};

describe("loadWrapperConfig: the runtime", () => {
  it("splits RUNTIME_COMMAND into words with {port} replaced, and the CLI likewise", () => {
    const config = loadWrapperConfig({
      ...OPENCLAW,
      RUNTIME_COMMAND: "/opt/node/bin/node /opt/oc/openclaw.mjs gateway run --port {port}",
      RUNTIME_CLI_COMMAND: "/opt/node/bin/node /opt/oc/openclaw.mjs",
    });
    expect(config.runtimeArgv).toEqual([
      "/opt/node/bin/node",
      "/opt/oc/openclaw.mjs",
      "gateway",
      "run",
      "--port",
      "18790",
    ]);
    expect(config.cliArgv).toEqual(["/opt/node/bin/node", "/opt/oc/openclaw.mjs"]);
    // No flag of a runtime OpenClaw does not have is ever added.
    expect(config.runtimeArgv.some((arg) => arg.startsWith("--hook"))).toBe(false);
  });

  it("OpenClaw (the default kind): the classify URL from the backend, the shipped plugin", () => {
    const config = loadWrapperConfig(OPENCLAW);
    expect(config.RUNTIME_KIND).toBe("openclaw");
    expect(config.classifyUrl).toBe("http://127.0.0.1:4000/api/hooks/classify");
    expect(config.pluginDir).toBe(DEFAULT_PLUGIN_DIR.replace(/\/$/, ""));
    expect(existsSync(`${DEFAULT_PLUGIN_DIR}/openclaw.plugin.json`)).toBe(true);
  });

  it("refuses to start an OpenClaw agent without its backend, token or plugin (fail-closed)", () => {
    const attempt = (env: Record<string, string>) => () => loadWrapperConfig(env);
    expect(attempt({ RUNTIME_PORT: "18790" })).toThrow(ConfigError);
    expect(attempt({ RUNTIME_PORT: "18790" })).toThrow(/PLATFORM_BACKEND_URL: required/);
    expect(attempt({ PLATFORM_BACKEND_URL: "http://127.0.0.1:4000" })).toThrow(/OPENCLAW_GATEWAY_TOKEN/);
    expect(attempt({ ...OPENCLAW, PLATFORM_PLUGIN_DIR: "/nonexistent/plugin" })).toThrow(
      /PLATFORM_PLUGIN_DIR: no permission plugin at \/nonexistent\/plugin/,
    );
    expect(attempt({ ...OPENCLAW, PLATFORM_CLASSIFY_URL: "not a url" })).toThrow(/PLATFORM_CLASSIFY_URL/);
    expect(attempt({ ...OPENCLAW, RUNTIME_KIND: "dev" })).toThrow(
      /RUNTIME_KIND: must be openclaw or external/,
    );
  });

  it("an external runtime runs as given, without a backend", () => {
    const config = loadWrapperConfig({
      RUNTIME_KIND: "external",
      RUNTIME_COMMAND: COMMAND,
      RUNTIME_PORT: "9",
    });
    expect(config.runtimeArgv).toEqual(["node", "fake-runtime.mjs", "--port", "9"]);
    expect(config.classifyUrl).toBeNull();
  });
});

describe("loadWrapperConfig: secrets from files (<VAR>_FILE)", () => {
  it("reads the gateway token and the admin password from their files; the runtime gets neither file path of the password", async () => {
    const dir = await mkdtemp(join(tmpdir(), "wrapper-secrets-"));
    try {
      await writeFile(join(dir, "token"), "gw-from-file\n");
      await writeFile(join(dir, "password"), "admin-from-file");
      const config = loadWrapperConfig({
        RUNTIME_PORT: "18790",
        PLATFORM_BACKEND_URL: "http://127.0.0.1:4000",
        OPENCLAW_GATEWAY_TOKEN_FILE: join(dir, "token"),
        WRAPPER_ADMIN_PASSWORD_FILE: join(dir, "password"),
      });
      expect(config.OPENCLAW_GATEWAY_TOKEN).toBe("gw-from-file");
      expect(config.WRAPPER_ADMIN_PASSWORD).toBe("admin-from-file");
      const env = runtimeEnv({
        env: config.processEnv,
        port: 18790,
        token: config.OPENCLAW_GATEWAY_TOKEN ?? null,
        stateDir: config.stateDir,
        configPath: config.configPath,
      });
      expect(env.OPENCLAW_GATEWAY_TOKEN).toBe("gw-from-file");
      expect(env.WRAPPER_ADMIN_PASSWORD).toBeUndefined();
      expect(env.WRAPPER_ADMIN_PASSWORD_FILE).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a file it cannot read, and a secret given both ways", () => {
    expect(() =>
      loadWrapperConfig({ ...OPENCLAW, WRAPPER_ADMIN_PASSWORD_FILE: "/nonexistent/password" }),
    ).toThrow(/WRAPPER_ADMIN_PASSWORD_FILE: cannot read \/nonexistent\/password \(ENOENT\)/);
    expect(() => loadWrapperConfig({ ...OPENCLAW, OPENCLAW_GATEWAY_TOKEN_FILE: "/etc/hostname" })).toThrow(
      /set OPENCLAW_GATEWAY_TOKEN or OPENCLAW_GATEWAY_TOKEN_FILE, not both/,
    );
  });
});
