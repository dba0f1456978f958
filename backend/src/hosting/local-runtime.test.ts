/**
 * The local driver's agent runtime: by default the managed OpenClaw it installs (here through the fake npm
 * of the installer's tests, whose OpenClaw entry runs the one fake runtime and reports the argv and Node it
 * was started with), or an operator's LOCAL_RUNTIME_COMMAND run as given. Real wrapper processes.
 */
import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { wrapperAdminPassword } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeNpm, installFakeNpm } from "../runtime-install/testing/fake-npm";
import { createLocalHostingPlatform, type LocalHostingPlatform } from "./local";
import { wrapperEnvironment } from "./local-process";
import { externalRuntimeVariables, OPENCLAW_GATEWAY_ARGS, openclawRuntimeVariables } from "./local-runtime";
import { LocalServiceStore } from "./local-store";
import { isProcessAlive, signalGroup } from "./proc";
import { testAgentEnvironment } from "./testing/agent-env";
import { wrapperReaches } from "./testing/wrapper-events";
import { agentServiceName } from "./types";

const VERSION = "2026.4.11";
const KEY = "ef".repeat(32);
const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
let root = "";
let npm: FakeNpm;
const drivers: Array<{ platform: LocalHostingPlatform; agentsDir: string }> = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "svc-local-runtime-"));
  // Agents running as their own OS users (the platform as root) must reach the installed runtime.
  await chmod(root, 0o755);
  npm = await installFakeNpm(root);
});

afterAll(async () => {
  for (const { platform, agentsDir } of drivers) {
    await platform.close();
    for (const record of await new LocalServiceStore(agentsDir).all())
      if (record.pid && (await isProcessAlive(record.pid, record.pidStart)))
        signalGroup(record.pid, "SIGKILL");
  }
  await rm(root, { recursive: true, force: true });
});

function driver(name: string, runtime: { managed?: NodeJS.ProcessEnv; command?: string }) {
  const agentsDir = join(root, `${name}-agents`);
  const platform = createLocalHostingPlatform({
    agentsDir,
    ...(runtime.command !== undefined
      ? { runtimeCommand: runtime.command }
      : {
          managedRuntime: {
            version: VERSION,
            runtimesDir: join(root, `${name}-runtimes`),
            env: runtime.managed,
          },
        }),
    wrapperEnv: { LOG_LEVEL: "info", RUNTIME_HEALTH_POLL_MS: "50", FAKE_RUNTIME_READY_AFTER_MS: "50" },
    stopTimeoutMs: 5_000,
  });
  drivers.push({ platform, agentsDir });
  return platform;
}

function createInput(agentId: string, token: string) {
  return {
    agentId,
    name: agentServiceName(agentId),
    image: "ghcr.io/openclaw/openclaw:latest",
    env: testAgentEnvironment(agentId, token, wrapperAdminPassword(KEY, agentId, token)),
  };
}

describe("the wrapper's runtime variables", () => {
  it("the managed OpenClaw: its gateway on the runtime port with the installed Node 22, and its CLI", () => {
    expect(openclawRuntimeVariables({ command: ["/rt/node", "/rt/openclaw.mjs"] })).toEqual({
      RUNTIME_COMMAND:
        "/rt/node /rt/openclaw.mjs gateway run --port {port} --bind loopback --auth token --allow-unconfigured",
      RUNTIME_CLI_COMMAND: "/rt/node /rt/openclaw.mjs",
      RUNTIME_KIND: "openclaw",
    });
    expect(externalRuntimeVariables("my-runtime --port {port}")).toEqual({
      RUNTIME_COMMAND: "my-runtime --port {port}",
      RUNTIME_KIND: "external",
    });
  });

  it("are the driver's to set: an agent's environment cannot replace them", () => {
    const env = wrapperEnvironment({
      inherited: { PATH: "/usr/bin" },
      agentEnv: { RUNTIME_COMMAND: "evil", RUNTIME_KIND: "external", AGENT_ID: "agt_x" },
      settings: {},
      home: "/home/agt_x",
      stateDir: "/agents/agt_x/state",
      wrapperPort: 1001,
      runtimePort: 1002,
      runtime: openclawRuntimeVariables({ command: ["/rt/node", "/rt/openclaw.mjs"] }),
    });
    expect(env).toMatchObject({
      RUNTIME_COMMAND: `/rt/node /rt/openclaw.mjs ${OPENCLAW_GATEWAY_ARGS}`,
      RUNTIME_CLI_COMMAND: "/rt/node /rt/openclaw.mjs",
      RUNTIME_KIND: "openclaw",
      RUNTIME_PORT: "1002",
      AGENT_ID: "agt_x",
    });
  });
});

describe("local driver with the managed runtime", () => {
  it("installs it (reporting each step), then runs OpenClaw's gateway with that Node on the agent's runtime port", async () => {
    const platform = driver("managed", { managed: npm.env() });
    await platform.ping();
    const steps: string[] = [];
    await platform.installRuntime((step) => steps.push(step));
    expect(steps).toEqual([
      `installing the agent runtime ${VERSION}… (Node 22)`,
      `installing the agent runtime ${VERSION}… (OpenClaw, about 1 GB)`,
      expect.stringMatching(
        new RegExp(`^installed the agent runtime ${VERSION} \\(Node v22\\.14\\.0\\) in `),
      ),
    ]);
    // Installed once: a second call and the deploy find it.
    await platform.installRuntime((step) => steps.push(step));
    expect(steps).toHaveLength(3);

    const service = await platform.create(createInput("agt_managed", "token-managed"));
    await wrapperReaches(service.url as string, wrapperAdminPassword(KEY, "agt_managed", "token-managed"));
    const seen = (await (await fetch(`${service.url}/env?all=1`)).json()) as Record<string, string>;
    // The driver's command; what the wrapper itself adds after it is the wrapper's business.
    expect(JSON.parse(seen.FAKE_OPENCLAW_ARGV).slice(0, 9)).toEqual([
      "gateway",
      "run",
      "--port",
      String(service.metadata.runtimePort),
      "--bind",
      "loopback",
      "--auth",
      "token",
      "--allow-unconfigured",
    ]);
    expect(seen.FAKE_OPENCLAW_NODE22).toBe("1");
    const found = await platform.find({ id: "agt_managed", name: "" });
    expect(found).toMatchObject({
      status: "running",
      // The version that runs is the managed one, whatever tag the image had.
      image: `ghcr.io/openclaw/openclaw:${VERSION}`,
      metadata: { runtimeKind: "openclaw", runtimeVersion: VERSION },
    });
    expect((await npm.calls()).map((c) => c.packages)).toEqual([
      [expect.stringMatching(/^node-linux-(x64|arm64)@22$/)],
      [`openclaw@${VERSION}`],
    ]);
  });

  it("a machine that cannot install it: the deploy fails naming what is missing, no agent process runs", async () => {
    const output =
      "npm error code ENOTFOUND\nnpm error network request to https://registry.npmjs.org/openclaw failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org";
    const platform = driver("offline", {
      managed: npm.env({ FAKE_NPM_FAIL: "openclaw", FAKE_NPM_FAIL_OUTPUT: output }),
    });
    await expect(platform.create(createInput("agt_offline", "token-offline"))).rejects.toMatchObject({
      name: "HostingError",
      reason: "platform",
      message: `the agent runtime ${VERSION} could not be installed: the npm registry is unreachable: code ENOTFOUND; network request to https://registry.npmjs.org/openclaw failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org`,
    });
    expect(await platform.list()).toEqual([]);
    expect(await readdir(join(root, "offline-runtimes"))).toEqual([]);
  });
});

describe("local driver with LOCAL_RUNTIME_COMMAND", () => {
  it("runs the operator's command as given (RUNTIME_KIND=external) and installs nothing", async () => {
    const platform = driver("external", { command: `${process.execPath} ${FAKE_RUNTIME}` });
    const steps: string[] = [];
    await platform.installRuntime((step) => steps.push(step));
    expect(steps).toEqual([]);
    const service = await platform.create(createInput("agt_external", "token-external"));
    await wrapperReaches(service.url as string, wrapperAdminPassword(KEY, "agt_external", "token-external"));
    expect(await platform.find({ id: "agt_external", name: "" })).toMatchObject({
      status: "running",
      image: "ghcr.io/openclaw/openclaw:latest",
      metadata: { runtimeKind: "external", runtimeVersion: null },
    });
    await expect(readdir(join(root, "external-runtimes"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
