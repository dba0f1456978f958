/** The outbound client behind a fetch signature, against a loopback server. */
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeUpstream, startFakeUpstream } from "../../testing/fake-upstream";
import { outboundFetch } from "./as-fetch";
import { createOutboundClient } from "./fetch";
import { OutboundError } from "./guard";

let upstream: FakeUpstream;
const client = createOutboundClient({ name: "the test upstream" });

beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => {
    if (req.url === "/json") {
      const body = gzipSync(JSON.stringify({ ok: true, method: req.method }));
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip", "x-extra": "1" });
      res.end(body);
    } else if (req.url === "/empty") {
      res.writeHead(202).end();
    } else if (req.url?.startsWith("/sse/")) {
      const events = Number(req.url.slice(5));
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < events; i++) res.write(`data: ${"x".repeat(100)}\n\n`);
      res.end();
    } else {
      res.writeHead(404).end();
    }
  });
});
afterAll(() => upstream.close());

describe("outboundFetch", () => {
  it("answers a Response with the status, headers and decompressed body; sends the method, headers and body", async () => {
    const fetchLike = outboundFetch(client, { timeoutMs: 5000, maxResponseBytes: 1024 });
    const res = await fetchLike(`${upstream.url}/json`, {
      method: "POST",
      headers: { "x-test": "yes", "content-type": "application/json" },
      body: JSON.stringify({ a: 1 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-extra")).toBe("1");
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(await res.json()).toEqual({ ok: true, method: "POST" });
    const sent = upstream.requests.at(-1);
    expect(sent?.headers["x-test"]).toBe("yes");
    expect(sent?.body.toString()).toBe('{"a":1}');
    const empty = await fetchLike(`${upstream.url}/empty`, { method: "POST" });
    expect(empty.status).toBe(202);
    expect(await empty.text()).toBe("");
  });

  it("passes a stream on whole under the cap, and cuts it past the cap, telling onStreamFailure", async () => {
    const failures: Array<[string, unknown]> = [];
    const fetchLike = outboundFetch(client, {
      timeoutMs: 5000,
      maxResponseBytes: 2000,
      onStreamFailure: (err, method) => failures.push([method, err]),
    });
    const small = await fetchLike(`${upstream.url}/sse/5`, { method: "POST" });
    expect((await small.text()).split("\n\n").filter(Boolean)).toHaveLength(5);
    const big = await fetchLike(`${upstream.url}/sse/50`, { method: "POST" });
    const error = await big.text().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).reason).toBe("too_large");
    expect(failures).toHaveLength(1);
    expect(failures[0][0]).toBe("POST");
  });

  it("a caller's signal aborted after the answer touches nothing (the pooled connection keeps working)", async () => {
    const fetchLike = outboundFetch(client, { timeoutMs: 5000, maxResponseBytes: 4096 });
    const controller = new AbortController();
    const first = await fetchLike(`${upstream.url}/sse/3`, { method: "POST", signal: controller.signal });
    const reader = first.body?.getReader();
    await reader?.read();
    controller.abort();
    const again = await fetchLike(`${upstream.url}/json`, { method: "GET" });
    expect(await again.json()).toEqual({ ok: true, method: "GET" });
    const aborted = new AbortController();
    aborted.abort();
    await expect(fetchLike(`${upstream.url}/json`, { signal: aborted.signal })).rejects.toMatchObject({
      reason: "aborted",
    });
  });
});
