import { afterEach, describe, expect, it } from "vitest";
import { type FakeUpstream, sendJson, startFakeUpstream } from "./fake-upstream";

let fake: FakeUpstream | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("startFakeUpstream", () => {
  it("serves on loopback, records requests and can change behaviour", async () => {
    fake = await startFakeUpstream((req, res, body) =>
      sendJson(res, 200, { echo: body.toString(), path: req.url }),
    );
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const first = await fetch(`${fake.url}/v1/things?x=1`, { method: "POST", body: "hello" });
    expect(await first.json()).toEqual({ echo: "hello", path: "/v1/things?x=1" });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ method: "POST", path: "/v1/things?x=1" });
    expect(fake.requests[0].body.toString()).toBe("hello");

    fake.setHandler((_req, res) => sendJson(res, 503, { error: "down" }));
    const second = await fetch(fake.url);
    expect(second.status).toBe(503);
  });

  it("answers 500 when the handler throws", async () => {
    fake = await startFakeUpstream(() => {
      throw new Error("boom");
    });
    const res = await fetch(fake.url);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("boom");
  });
});
