import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOpenClawGateway, FakeRpcError, startFakeOpenClawGateway } from "@svc/common/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadOrCreateDeviceIdentity } from "./device-identity";
import { createGatewayRpc, OPERATOR_SCOPES, RpcError } from "./rpc";

const TOKEN = "gw-token-rpc";
let dir: string;
let gateway: FakeOpenClawGateway;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "wrapper-rpc-"));
  gateway = await startFakeOpenClawGateway({ token: TOKEN });
});
afterEach(async () => {
  await gateway.close();
  await rm(dir, { recursive: true, force: true });
});

describe("device identity", () => {
  it("is created once (0600) and read back the same", async () => {
    const path = join(dir, "platform", "device.json");
    const first = loadOrCreateDeviceIdentity(path);
    expect(first.deviceId).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(loadOrCreateDeviceIdentity(path)).toEqual(first);
    expect(JSON.parse(await readFile(path, "utf8")).privateKeyPem).toContain("PRIVATE KEY");
  });
});

describe("createGatewayRpc", () => {
  it("signs the challenge, connects with the operator scopes, and answers calls", async () => {
    gateway.setMethod("sessions.list", (params) => ({ sessions: [], echo: params }));
    const rpc = createGatewayRpc({
      port: gateway.port,
      token: TOKEN,
      identity: loadOrCreateDeviceIdentity(join(dir, "device.json")),
    });
    await expect(rpc.call("sessions.list", { limit: 3 })).resolves.toEqual({
      sessions: [],
      echo: { limit: 3 },
    });
    expect(gateway.refused).toEqual([]);
    expect(OPERATOR_SCOPES).toContain("operator.admin");
    rpc.close();
  });

  it("reconnects on the next call after the runtime dropped the connection", async () => {
    let n = 0;
    gateway.setMethod("health", () => ({ n: ++n }));
    const rpc = createGatewayRpc({
      port: gateway.port,
      token: TOKEN,
      identity: loadOrCreateDeviceIdentity(join(dir, "device.json")),
    });
    expect(await rpc.call("health")).toEqual({ n: 1 });
    gateway.dropConnections();
    // The drop may still be in flight: the first call after it fails or reconnects; the next one reconnects.
    await rpc.call("health").catch((error: unknown) => expect(error).toBeInstanceOf(RpcError));
    expect(await rpc.call("health")).toMatchObject({ n: expect.any(Number) });
    rpc.close();
  });

  it("a refused token, a runtime error and no runtime are RpcErrors with the reason", async () => {
    const identity = loadOrCreateDeviceIdentity(join(dir, "device.json"));
    const wrongToken = createGatewayRpc({ port: gateway.port, token: "nope", identity });
    await expect(wrongToken.call("health")).rejects.toThrow(/gateway token mismatch/);
    expect(gateway.refused).toEqual(["unauthorized: gateway token mismatch"]);

    gateway.setMethod("cron.remove", () => {
      throw new FakeRpcError("INVALID_REQUEST", "unknown cron job id: x");
    });
    const rpc = createGatewayRpc({ port: gateway.port, token: TOKEN, identity });
    const refused = await rpc.call("cron.remove", { id: "x" }).catch((error: RpcError) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect(refused).toMatchObject({ code: "INVALID_REQUEST", message: "unknown cron job id: x" });
    rpc.close();

    await gateway.close();
    const gone = createGatewayRpc({ port: gateway.port, token: TOKEN, identity, timeoutMs: 2_000 });
    await expect(gone.call("health")).rejects.toMatchObject({ code: "unreachable" });
  });

  it("a call the runtime never answers times out", async () => {
    gateway.setMethod("sessions.list", () => new Promise(() => undefined));
    const rpc = createGatewayRpc({
      port: gateway.port,
      token: TOKEN,
      identity: loadOrCreateDeviceIdentity(join(dir, "device.json")),
    });
    await expect(rpc.call("sessions.list", {}, 200)).rejects.toMatchObject({ code: "timeout" });
    rpc.close();
  });
});
