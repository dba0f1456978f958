/**
 * No driver hands a platform secret to an agent: the environment each one really sends (local: what the
 * runtime process behind the spawned wrapper sees, and service.json; railway: the variableCollectionUpsert
 * variables; docker: the container's Env) holds no name of PLATFORM_SECRET_NAMES and no value equal to a
 * secret of the platform's configuration — even while the platform's own process.env holds them.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PLATFORM_SECRET_NAMES, sha256Hex, wrapperAdminPassword } from "@svc/common";
import { startFakeDocker, startFakeRailway } from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBackendConfig } from "../config";
import { probeRuntime } from "../runtime/probe";
import { createHostingPlatform, type HostingConfig } from "./index";
import { agentEnvironment, agentServiceName, type HostingPlatform } from "./types";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
const SECRETS = {
  INTERNAL_API_KEY: "secret-internal-key-0123456789",
  HMAC_SECRET: "secret-hmac-0123456789",
  DATA_ENCRYPTION_KEY: "ab".repeat(32),
  AI_PROVIDER_KEY: "secret-ai-provider-key",
  HOSTING_API_KEY: "secret-hosting-api-key",
  WATCHDOG_BOT_TOKEN: "secret-bot-token",
  SESSION_SECRET: "secret-session",
  WALLET_ENCRYPTION_KEY: "secret-wallet-key",
  HOSTING_WEBHOOK_SECRET: "secret-webhook",
  KV_REST_API_TOKEN: "secret-kv-token",
};
const GATEWAY_TOKEN = "agent-gateway-token-abc";
const AGENT_ID = "agt_envcheck";
let dir = "";
let savedEnv: NodeJS.ProcessEnv;

function configFor(
  provider: "local" | "railway" | "docker",
  extra: Record<string, string> = {},
): HostingConfig {
  return loadBackendConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    PATH: process.env.PATH,
    ...SECRETS,
    HOSTING_PROVIDER: provider,
    HOSTING_PROJECT_ID: "prj-1",
    HOSTING_ENVIRONMENT_ID: "env-1",
    LOCAL_AGENTS_DIR: dir,
    LOCAL_RUNTIME_COMMAND: `${process.execPath} ${FAKE_RUNTIME}`,
    ...extra,
  });
}

const ADMIN_PASSWORD = wrapperAdminPassword(SECRETS.DATA_ENCRYPTION_KEY, AGENT_ID, GATEWAY_TOKEN);

const agentEnv = () =>
  agentEnvironment({
    gatewayToken: GATEWAY_TOKEN,
    adminPassword: ADMIN_PASSWORD,
    aiProvider: "openrouter",
    model: "openai/gpt-4o-mini",
    agentType: "creative",
    plan: "solo",
    agentId: AGENT_ID,
    backendUrl: "http://127.0.0.1:4000",
  });

const createInput = (env: Record<string, string>) => ({
  agentId: AGENT_ID,
  name: agentServiceName(AGENT_ID),
  image: "ghcr.io/openclaw/openclaw:2026.4.11",
  env,
});

/** Every variable of `env` that is a platform secret by name or by value. */
function leaks(env: Record<string, unknown>): string[] {
  const secretValues = [...Object.values(SECRETS), process.env.DATABASE_URL ?? "database-url-unset"];
  return Object.entries(env)
    .filter(
      ([name, value]) =>
        (PLATFORM_SECRET_NAMES as readonly string[]).includes(name) || secretValues.includes(String(value)),
    )
    .map(([name]) => name);
}

/** Each driver refuses an environment carrying a secret by name or by value. */
async function expectRefusals(platform: HostingPlatform) {
  await expect(platform.create(createInput({ ...agentEnv(), INTERNAL_API_KEY: "x" }))).rejects.toMatchObject({
    reason: "platform",
    message: expect.stringContaining("INTERNAL_API_KEY"),
  });
  const refused = platform.create(
    createInput({ ...agentEnv(), SOME_URL: process.env.DATABASE_URL as string }),
  );
  await expect(refused).rejects.toMatchObject({
    reason: "platform",
    message: expect.stringContaining("SOME_URL"),
  });
  await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining("postgres") });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-agent-env-"));
  savedEnv = { ...process.env };
  // The platform's own environment holds its secrets, as in production.
  Object.assign(process.env, SECRETS);
});

afterAll(async () => {
  process.env = savedEnv;
  await rm(dir, { recursive: true, force: true });
});

describe("the agent environment", () => {
  it("holds the agent's variables: its token, its own admin password (not the token), model and URLs", () => {
    expect(agentEnv()).toEqual({
      OPENCLAW_GATEWAY_TOKEN: GATEWAY_TOKEN,
      WRAPPER_ADMIN_PASSWORD: ADMIN_PASSWORD,
      AI_PROVIDER: "openrouter",
      AGENT_MODEL: "openai/gpt-4o-mini",
      AGENT_TYPE: "creative",
      AGENT_PLAN: "solo",
      AGENT_ID: AGENT_ID,
      PLATFORM_BACKEND_URL: "http://127.0.0.1:4000",
      PLATFORM_CLASSIFY_URL: "http://127.0.0.1:4000/api/hooks/classify",
    });
    // The token alone opens nothing of the wrapper's admin API: the password needs the platform's key.
    expect(ADMIN_PASSWORD).toMatch(/^[0-9a-f]{64}$/);
    expect(ADMIN_PASSWORD).not.toBe(GATEWAY_TOKEN);
    expect(ADMIN_PASSWORD).not.toBe(sha256Hex(GATEWAY_TOKEN));
    expect(wrapperAdminPassword("cd".repeat(32), AGENT_ID, GATEWAY_TOKEN)).not.toBe(ADMIN_PASSWORD);
  });
});

describe("the environment each driver gives an agent", () => {
  it("local: the runtime behind the wrapper sees the agent's variables and no platform secret", async () => {
    const platform = createHostingPlatform(configFor("local"), {
      local: { wrapperEnv: { LOG_LEVEL: "warn", FAKE_RUNTIME_READY_AFTER_MS: "0" }, stopTimeoutMs: 5_000 },
    });
    try {
      await expectRefusals(platform);
      const service = await platform.create(createInput(agentEnv()));
      await expect
        .poll(async () => (await probeRuntime(service.url as string, { healthzTimeoutMs: 500 })).status, {
          message: "agent did not start",
          timeout: 30_000,
        })
        .toBe("running");
      const seen = (await (await fetch(`${service.url}/env?all=1`)).json()) as Record<string, string>;
      expect(seen.OPENCLAW_GATEWAY_TOKEN).toBe(GATEWAY_TOKEN);
      expect(seen.PLATFORM_CLASSIFY_URL).toBe("http://127.0.0.1:4000/api/hooks/classify");
      expect(seen.PATH).toBe(process.env.PATH);
      expect(leaks(seen)).toEqual([]);
      const record = JSON.parse(await readFile(join(dir, AGENT_ID, "service.json"), "utf8"));
      expect(record.env).toEqual(agentEnv());
      expect(leaks(record.env)).toEqual([]);
    } finally {
      await platform.close();
    }
  });

  it("railway: the variableCollectionUpsert variables", async () => {
    const fake = await startFakeRailway({
      token: SECRETS.HOSTING_API_KEY,
      tokenType: "account",
      projectId: "prj-1",
      environmentId: "env-1",
    });
    try {
      const platform = createHostingPlatform(configFor("railway", { HOSTING_API_URL: fake.url }));
      await expectRefusals(platform);
      await platform.create(createInput(agentEnv()));
      const upserts = fake.calls.filter((c) => c.operationName === "VariableCollectionUpsert");
      expect(upserts).toHaveLength(1);
      const variables = (upserts[0].variables.input as { variables: Record<string, string> }).variables;
      expect(variables).toEqual(agentEnv());
      expect(leaks(variables)).toEqual([]);
      // The hosting key only ever travels in the Authorization header.
      for (const call of fake.calls)
        expect(JSON.stringify(call.variables)).not.toContain(SECRETS.HOSTING_API_KEY);
    } finally {
      await fake.close();
    }
  });

  it("docker: the container create Env", async () => {
    const fake = await startFakeDocker({ socketPath: join(dir, "docker.sock") });
    const platform = createHostingPlatform(configFor("docker", { DOCKER_HOST: fake.dockerHost }));
    try {
      await expectRefusals(platform);
      await platform.create(createInput(agentEnv()));
      const create = fake.requests.find((r) => r.path === "/containers/create");
      const sent = Object.fromEntries(
        ((create?.body as { Env?: string[] } | undefined)?.Env ?? []).map((entry) => {
          const eq = entry.indexOf("=");
          return [entry.slice(0, eq), entry.slice(eq + 1)];
        }),
      );
      expect(sent).toEqual(agentEnv());
      expect(leaks(sent)).toEqual([]);
    } finally {
      await platform.close();
      await fake.close();
    }
  });

  it("the leak check itself catches a secret by name and by value", () => {
    expect(leaks({ OK: "fine", HMAC_SECRET: "x", OTHER: SECRETS.AI_PROVIDER_KEY })).toEqual([
      "HMAC_SECRET",
      "OTHER",
    ]);
  });
});
