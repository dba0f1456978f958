import { createServer, type Server } from "node:net";
import { freePort } from "@svc/common";
import { startFakeKvStore } from "@svc/common/testing";
import { afterAll, describe, expect, it } from "vitest";
import { KvError, kvCommand, kvConfigFrom, kvGet, kvSet } from "./client";

const store = await startFakeKvStore();
const kv = { url: store.url, token: store.token };
const silent: Server = createServer(() => undefined);
await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
afterAll(async () => {
  await store.close();
  silent.close();
});

describe("key-value store client", () => {
  it("sends SET with EX as a JSON command array with the bearer token, and reads it back", async () => {
    await kvSet(kv, "k1", '{"a":1}', 604_800);
    const sent = store.requests.at(-1);
    expect(sent?.method).toBe("POST");
    expect(sent?.headers.authorization).toBe(`Bearer ${store.token}`);
    expect(JSON.parse(sent?.body.toString() ?? "")).toEqual(["SET", "k1", '{"a":1}', "EX", "604800"]);
    expect(store.ttls.get("k1")).toBe(604_800);
    expect(await kvGet(kv, "k1")).toBe('{"a":1}');
    expect(await kvGet(kv, "absent")).toBeNull();
  });

  it("a wrong token, a store error, an unreachable store and a timeout are KvErrors", async () => {
    await expect(kvSet({ ...kv, token: "wrong" }, "k", "v", 1)).rejects.toMatchObject({
      name: "KvError",
      status: 401,
      message: "key-value store answered 401: Unauthorized",
    });
    await expect(kvCommand(kv, ["NOPE"])).rejects.toMatchObject({
      status: 400,
      message: "key-value store answered 400: ERR unknown command 'NOPE'",
    });
    const down = { url: `http://127.0.0.1:${await freePort()}`, token: "t" };
    await expect(kvGet(down, "k")).rejects.toThrow(new KvError("key-value store unreachable"));
    const { port } = silent.address() as { port: number };
    await expect(
      kvCommand({ url: `http://127.0.0.1:${port}`, token: "t" }, ["GET", "k"], 100),
    ).rejects.toThrow("key-value store timed out after 100 ms");
  });

  it("is configured only with both URL and token", () => {
    expect(kvConfigFrom({})).toBeNull();
    expect(kvConfigFrom({ KV_REST_API_URL: store.url })).toBeNull();
    expect(kvConfigFrom({ KV_REST_API_URL: store.url, KV_REST_API_TOKEN: "t" })).toEqual({
      url: store.url,
      token: "t",
    });
  });
});
