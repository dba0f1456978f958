import { newId, sealGatewayToken } from "@svc/common";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, testDatabase } from "../testing";
import { GatewayTokenStore, generateGatewayToken } from "./tokens";

const KEY = "cd".repeat(32);
const database = testDatabase();
const userId = newId("usr");

beforeAll(async () => {
  await createUser({ id: userId, name: "T" });
});

async function agentWith(token: string | null): Promise<string> {
  const id = newId("agt");
  await database.db.insert(agents).values({
    id,
    userId,
    name: "A",
    gatewayTokenEncrypted: token ? sealGatewayToken(KEY, token) : null,
  });
  return id;
}

describe("gateway tokens", () => {
  it("generates 64 hex characters", () => {
    const token = generateGatewayToken();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(generateGatewayToken()).not.toBe(token);
  });

  it("finds the agent of a stored token, and nothing for an unknown one", async () => {
    const token = generateGatewayToken();
    const id = await agentWith(token);
    const store = new GatewayTokenStore(database.db, KEY);
    expect(await store.findOwner(token)).toEqual({ agentId: id, userId });
    expect(await store.findOwner(generateGatewayToken())).toBeNull();
    expect(await store.findOwner("")).toBeNull();
  });

  it("a rotated token stops working at once in the rotating store, and within verifiedForMs in another", async () => {
    let now = 0;
    const old = generateGatewayToken();
    const id = await agentWith(old);
    const reader = new GatewayTokenStore(database.db, KEY, { verifiedForMs: 1_000, now: () => now });
    const writer = new GatewayTokenStore(database.db, KEY, { verifiedForMs: 1_000, now: () => now });
    expect(await reader.findOwner(old)).toEqual({ agentId: id, userId });
    expect(await writer.findOwner(old)).toEqual({ agentId: id, userId });
    const next = generateGatewayToken();
    await writer.write(id, next);
    expect(await writer.findOwner(old)).toBeNull(); // the rotating store: at once
    now = 999;
    expect(await reader.findOwner(old)).toEqual({ agentId: id, userId }); // checked 999 ms ago: trusted
    now = 1_000;
    expect(await reader.findOwner(old)).toBeNull(); // re-checked against the stored token: refused
    expect(await writer.findOwner(next)).toEqual({ agentId: id, userId });
  });

  it("a token written elsewhere is found by the next scan, at most one scan per interval", async () => {
    let now = 0;
    const store = new GatewayTokenStore(database.db, KEY, { minScanIntervalMs: 5_000, now: () => now });
    expect(await store.findOwner(generateGatewayToken())).toBeNull(); // first scan
    const token = generateGatewayToken();
    const id = await agentWith(token);
    now = 1_000;
    expect(await store.findOwner(token)).toBeNull(); // within the interval: no rescan
    now = 5_000;
    expect(await store.findOwner(token)).toEqual({ agentId: id, userId });
  });

  it("ensure keeps an existing token and creates a missing one; without a key nothing is usable", async () => {
    const token = generateGatewayToken();
    const id = await agentWith(token);
    const store = new GatewayTokenStore(database.db, KEY);
    const [row] = await database.db.select().from(agents).where(eq(agents.id, id));
    expect(await store.ensure(row)).toEqual({ token, generated: false });
    const bareId = await agentWith(null);
    const [bare] = await database.db.select().from(agents).where(eq(agents.id, bareId));
    const created = await store.ensure(bare);
    expect(created.generated).toBe(true);
    expect(await store.findOwner(created.token)).toEqual({ agentId: bareId, userId });

    const keyless = new GatewayTokenStore(database.db, undefined);
    expect(keyless.usable).toBe(false);
    expect(await keyless.findOwner(token)).toBeNull();
    expect(() => keyless.open(row)).toThrow(/DATA_ENCRYPTION_KEY is not configured/);
  });
});
