/** The docker driver against a loopback Docker Engine API fake, over a unix socket and over TCP. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeDocker, logFrame, startFakeDocker } from "@svc/common/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDockerHostingPlatform, type DockerHostingPlatform } from "./docker";
import {
  DockerApi,
  demultiplexLogs,
  dockerCpuPercent,
  dockerMemoryUsage,
  parseDockerHost,
} from "./docker-api";
import { agentServiceName } from "./types";

const IMAGE = "ghcr.io/openclaw/openclaw:2026.4.11";
const NEW_IMAGE = "ghcr.io/openclaw/openclaw:2026.5.1";
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-docker-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const input = (
  agentId: string,
  env: Record<string, string> = { OPENCLAW_GATEWAY_TOKEN: "tok-1", AGENT_ID: agentId },
) => ({
  agentId,
  name: agentServiceName(agentId),
  image: IMAGE,
  env,
});

describe.each(["unix", "tcp"] as const)("docker driver over %s", (transport) => {
  let fake: FakeDocker;
  let platform: DockerHostingPlatform;

  beforeEach(async () => {
    fake = await startFakeDocker(
      transport === "unix" ? { socketPath: join(dir, `docker-${Date.now()}.sock`) } : {},
    );
    platform = createDockerHostingPlatform({ dockerHost: fake.dockerHost });
  });
  afterEach(async () => {
    await platform.close();
    await fake.close();
  });

  it("pings, and creates a labelled container with env, volume, published port and restart policy", async () => {
    await platform.ping();
    const service = await platform.create(input("agt_one"));
    expect(service).toMatchObject({
      id: "agent-one",
      name: "agent-one",
      image: IMAGE,
      status: "running",
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
    // The image was missing: pulled first, by its pinned reference.
    const pull = fake.requests.find((r) => r.path === "/images/create");
    expect(pull?.query.get("fromImage")).toBe(IMAGE);
    const create = fake.requests.find((r) => r.path === "/containers/create");
    expect(create?.query.get("name")).toBe("agent-one");
    expect(create?.body).toEqual({
      Image: IMAGE,
      Env: ["OPENCLAW_GATEWAY_TOKEN=tok-1", "AGENT_ID=agt_one"],
      Labels: {
        "svc.agent-id": "agt_one",
        "svc.service-name": "agent-one",
        "svc.env-names": "OPENCLAW_GATEWAY_TOKEN,AGENT_ID",
      },
      ExposedPorts: { "8080/tcp": {} },
      HostConfig: {
        PortBindings: { "8080/tcp": [{ HostIp: "127.0.0.1", HostPort: "" }] },
        RestartPolicy: { Name: "unless-stopped" },
        Mounts: [{ Type: "volume", Source: "agent-one-data", Target: "/data" }],
      },
    });
    const hostPort = fake.byName("agent-one")?.NetworkSettings.Ports["8080/tcp"]?.[0].HostPort;
    expect(service.url).toBe(`http://127.0.0.1:${hostPort}`);
    expect(JSON.stringify(service)).not.toContain("tok-1");
  });

  it("finds by id and by name, lists only agent containers, and maps states", async () => {
    await platform.create(input("agt_one"));
    await platform.create(input("agt_two"));
    // A container that is not an agent's stays invisible.
    fake.images.add("postgres:16");
    await fetchDocker(fake, "POST", "/containers/create?name=db", { Image: "postgres:16", Labels: {} });

    expect(await platform.find({ id: "agent-one", name: "x" })).toMatchObject({
      id: "agent-one",
      status: "running",
    });
    expect(await platform.find({ id: "gone", name: "agent-two" })).toMatchObject({ id: "agent-two" });
    expect(await platform.find({ name: "db" })).toBeNull();
    expect(await platform.find({ name: "agent-nobody" })).toBeNull();

    fake.exit("agent-two", 1);
    const listed = await platform.list();
    expect(listed.map((s) => [s.id, s.status]).sort()).toEqual([
      ["agent-one", "running"],
      ["agent-two", "crashed"],
    ]);
    expect(listed.find((s) => s.id === "agent-two")?.url).toBeNull();
    const listCall = fake.requests.find((r) => r.path === "/containers/json");
    expect(listCall?.query.get("all")).toBe("1");
    expect(JSON.parse(listCall?.query.get("filters") ?? "")).toEqual({ label: ["svc.agent-id"] });

    fake.exit("agent-two", 137, true);
    expect((await platform.find({ name: "agent-two" }))?.status).toBe("crashed");
    fake.exit("agent-two", 0);
    expect((await platform.find({ name: "agent-two" }))?.status).toBe("stopped");
  });

  it("stops, starts (deploy), restarts and removes with its volume", async () => {
    await platform.create(input("agt_one"));
    await platform.stop("agent-one");
    expect(await platform.find({ name: "agent-one" })).toMatchObject({ status: "stopped", url: null });
    await platform.stop("agent-one"); // 304 already stopped is fine
    const deployed = await platform.deploy("agent-one");
    expect(deployed.status).toBe("running");
    await platform.restart("agent-one");
    const restart = fake.requests.find((r) => r.path === "/containers/agent-one/restart");
    expect(restart?.query.get("t")).toBe("10");
    const redeployed = await platform.deploy("agent-one");
    expect(redeployed.status).toBe("running");
    expect(fake.requests.filter((r) => r.path === "/containers/agent-one/restart")).toHaveLength(2);

    expect(fake.volumes.has("agent-one-data")).toBe(true);
    await platform.remove("agent-one");
    expect(fake.byName("agent-one")).toBeUndefined();
    expect(fake.volumes.has("agent-one-data")).toBe(false);
    await expect(platform.restart("agent-one")).rejects.toMatchObject({ reason: "not_found" });
    await expect(platform.stats("agent-one")).rejects.toMatchObject({ reason: "not_found" });
  });

  it("setEnv and setImage recreate the container, keep only the agent's variables, and keep it running", async () => {
    await platform.create(input("agt_one"));
    const firstId = fake.byName("agent-one")?.Id;
    await platform.setEnv("agent-one", { OPENCLAW_GATEWAY_TOKEN: "tok-2", AGENT_ID: "agt_one" });
    let container = fake.byName("agent-one");
    expect(container?.Id).not.toBe(firstId);
    expect(container?.State.Running).toBe(true);
    expect(container?.Config.Env).toContain("OPENCLAW_GATEWAY_TOKEN=tok-2");
    expect(container?.Config.Env).not.toContain("OPENCLAW_GATEWAY_TOKEN=tok-1");
    expect(fake.containers.size).toBe(1);

    await platform.setImage("agent-one", NEW_IMAGE);
    container = fake.byName("agent-one");
    expect(container?.Config.Image).toBe(NEW_IMAGE);
    const lastCreate = fake.requests.filter((r) => r.path === "/containers/create").at(-1);
    // The image's own ENV (PATH, NODE_VERSION) is not carried into the new container as agent variables.
    expect((lastCreate?.body as { Env: string[] } | undefined)?.Env).toEqual([
      "OPENCLAW_GATEWAY_TOKEN=tok-2",
      "AGENT_ID=agt_one",
    ]);
    expect(fake.volumes.has("agent-one-data")).toBe(true);

    // A stopped agent stays stopped through a recreate.
    await platform.stop("agent-one");
    await platform.setEnv("agent-one", { OPENCLAW_GATEWAY_TOKEN: "tok-3" });
    expect(fake.byName("agent-one")?.State.Running).toBe(false);
  });

  it("a failed pull leaves the agent as it was", async () => {
    await platform.create(input("agt_one"));
    fake.unpullable.add("ghcr.io/openclaw/openclaw:broken");
    await expect(platform.setImage("agent-one", "ghcr.io/openclaw/openclaw:broken")).rejects.toMatchObject({
      reason: "platform",
      message: expect.stringContaining("manifest unknown"),
    });
    expect(fake.byName("agent-one")).toMatchObject({ Config: { Image: IMAGE }, State: { Running: true } });
  });

  it("create of an existing agent recreates it with the new config", async () => {
    await platform.create(input("agt_one"));
    const again = await platform.create({ ...input("agt_one", { OPENCLAW_GATEWAY_TOKEN: "tok-9" }) });
    expect(again.status).toBe("running");
    expect(fake.containers.size).toBe(1);
    expect(fake.byName("agent-one")?.Config.Env).toContain("OPENCLAW_GATEWAY_TOKEN=tok-9");
  });

  it("stats: CPU percent from the precpu delta, memory without cache, limit", async () => {
    await platform.create(input("agt_one"));
    fake.setStats({
      cpu_stats: {
        cpu_usage: { total_usage: 400_000_000 },
        system_cpu_usage: 20_000_000_000,
        online_cpus: 4,
      },
      precpu_stats: { cpu_usage: { total_usage: 300_000_000 }, system_cpu_usage: 18_000_000_000 },
      memory_stats: { usage: 150_000_000, limit: 2_000_000_000, stats: { inactive_file: 50_000_000 } },
    });
    // (100e6 / 2e9) * 4 * 100 = 20 %
    expect(await platform.stats("agent-one")).toEqual({
      cpuPercent: 20,
      memoryBytes: 100_000_000,
      memoryLimitBytes: 2_000_000_000,
    });
    expect(fake.requests.find((r) => r.path.endsWith("/stats"))?.query.get("stream")).toBe("false");
    await platform.stop("agent-one");
    expect(await platform.stats("agent-one")).toEqual({
      cpuPercent: null,
      memoryBytes: null,
      memoryLimitBytes: null,
    });
  });

  it("logs: demultiplexes stdout and stderr frames with their timestamps", async () => {
    await platform.create(input("agt_one"));
    fake.setLogs(
      "agent-one",
      Buffer.concat([
        logFrame("stdout", "2026-01-02T03:04:05.123456789Z wrapper listening\n"),
        logFrame("stderr", "2026-01-02T03:04:06.000000000Z runtime warning\n"),
        logFrame("stdout", "2026-01-02T03:04:07.5Z split "),
        logFrame("stdout", "line\n"),
      ]),
    );
    expect(await platform.logs("agent-one", 3)).toEqual([
      { ts: "2026-01-02T03:04:05.123Z", stream: "stdout", line: "wrapper listening" },
      { ts: "2026-01-02T03:04:06.000Z", stream: "stderr", line: "runtime warning" },
      { ts: "2026-01-02T03:04:07.500Z", stream: "stdout", line: "split line" },
    ]);
    const call = fake.requests.find((r) => r.path.endsWith("/logs"));
    expect(Object.fromEntries(call?.query ?? [])).toEqual({
      stdout: "1",
      stderr: "1",
      tail: "3",
      timestamps: "1",
    });
  });
});

describe("docker driver failures and wire formats", () => {
  it("an unreachable daemon is a platform error naming DOCKER_HOST", async () => {
    const platform = createDockerHostingPlatform({ dockerHost: `unix://${join(dir, "absent.sock")}` });
    await expect(platform.ping()).rejects.toMatchObject({
      reason: "platform",
      message: expect.stringContaining("absent.sock"),
    });
    await platform.close();
  });

  it("parses DOCKER_HOST", () => {
    expect(parseDockerHost("unix:///var/run/docker.sock")).toMatchObject({
      socketPath: "/var/run/docker.sock",
    });
    expect(parseDockerHost("tcp://10.0.0.5:2375")).toMatchObject({
      protocol: "http:",
      host: "10.0.0.5",
      port: 2375,
    });
    expect(parseDockerHost("https://docker.example:2376")).toMatchObject({ protocol: "https:", port: 2376 });
    expect(() => parseDockerHost("ssh://host")).toThrow(/DOCKER_HOST/);
    expect(() => parseDockerHost("unix://relative.sock")).toThrow(/absolute/);
  });

  it("CPU percent needs a positive system delta; per-CPU list counts CPUs when online_cpus is absent", () => {
    expect(dockerCpuPercent({})).toBeNull();
    expect(
      dockerCpuPercent({
        cpu_stats: { cpu_usage: { total_usage: 10 }, system_cpu_usage: 100 },
        precpu_stats: { cpu_usage: { total_usage: 10 }, system_cpu_usage: 100 },
      }),
    ).toBeNull();
    expect(
      dockerCpuPercent({
        cpu_stats: { cpu_usage: { total_usage: 150, percpu_usage: [1, 2] }, system_cpu_usage: 1_100 },
        precpu_stats: { cpu_usage: { total_usage: 100 }, system_cpu_usage: 100 },
      }),
    ).toBe(10);
    expect(dockerMemoryUsage({ memory_stats: { usage: 500, stats: { total_inactive_file: 100 } } })).toBe(
      400,
    );
    expect(dockerMemoryUsage({ memory_stats: {} })).toBeNull();
  });

  it("demultiplexes a frame cut short without throwing", () => {
    const frame = logFrame("stdout", "hello\n");
    expect(demultiplexLogs(frame.subarray(0, frame.length - 2))).toEqual([
      { ts: "", stream: "stdout", line: "hell" },
    ]);
  });
});

/** A raw call to the fake through our own client (e.g. to create a container that is not an agent's). */
async function fetchDocker(fake: FakeDocker, method: string, path: string, body: unknown) {
  const api = new DockerApi(parseDockerHost(fake.dockerHost), fake.dockerHost);
  const [pathname, search] = path.split("?");
  await api.request(method, pathname, { query: Object.fromEntries(new URLSearchParams(search)), body });
  api.close();
}
