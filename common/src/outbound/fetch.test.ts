/**
 * The one outbound client against real loopback servers: one deadline, the size cap (declared and
 * streamed), redirects refused by default, failures named by reason and upstream, the request id header.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../../testing/fake-upstream";
import { createOutboundClient, httpStatusError } from "./fetch";
import { OutboundError, outboundPolicy } from "./guard";

let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeUpstream((req, res, body) => {
    const path = req.url ?? "/";
    if (path === "/echo")
      return sendJson(res, 200, {
        method: req.method,
        body: body.toString("utf8"),
        contentType: req.headers["content-type"] ?? null,
        requestId: req.headers["x-request-id"] ?? null,
        token: req.headers.authorization ?? null,
      });
    if (path === "/declared-large") {
      res.writeHead(200, { "content-type": "text/plain", "content-length": "5000" });
      return void res.end("x".repeat(5000));
    }
    if (path === "/streamed-large") {
      res.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 10; i++) res.write("y".repeat(500));
      return void res.end();
    }
    if (path === "/gzip-bomb") {
      res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
      return void res.end(gzipSync("z".repeat(100_000)));
    }
    if (path === "/redirect") {
      res.writeHead(302, { location: "/echo" });
      return void res.end();
    }
    if (path.startsWith("/redirect-to?")) {
      res.writeHead(307, { location: new URL(path, "http://x").searchParams.get("to") ?? "/" });
      return void res.end();
    }
    if (path === "/silent") return; // never answers
    if (path === "/trickle") {
      // Headers at once, the body never ends: the deadline still covers the body.
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.write("partial");
    }
    if (path === "/missing") return sendJson(res, 404, { error: "not_found" });
    return sendJson(res, 500, { error: "unexpected path" });
  });
});

afterAll(async () => {
  await upstream.close();
});

const client = () =>
  createOutboundClient({ name: "the test upstream", baseUrl: `${upstream.url}/`, maxResponseBytes: 1000 });

describe("createOutboundClient", () => {
  it("sends method, JSON body, headers and the request id to base URL + path", async () => {
    const answer = await client().request({
      method: "POST",
      url: "/echo",
      json: { hello: "world" },
      headers: { authorization: "Bearer tok" },
      requestId: "req_123",
    });
    expect(answer.status).toBe(200);
    expect(answer.ok).toBe(true);
    expect(answer.json()).toEqual({
      method: "POST",
      body: '{"hello":"world"}',
      contentType: "application/json",
      requestId: "req_123",
      token: "Bearer tok",
    });
  });

  it("answers any status; httpStatusError names the upstream and the status", async () => {
    const answer = await client().request({ url: "/missing" });
    expect(answer).toMatchObject({ status: 404, ok: false });
    expect(answer.json()).toEqual({ error: "not_found" });
    const err = httpStatusError("the test upstream", answer);
    expect(err).toMatchObject({
      reason: "http",
      status: 404,
      message: "the test upstream answered HTTP 404",
    });
  });

  it("refuses an answer whose Content-Length is over the cap", async () => {
    await expect(client().request({ url: "/declared-large" })).rejects.toMatchObject({
      name: "OutboundError",
      reason: "too_large",
      upstream: "the test upstream",
      maxBytes: 1000,
      message: "the test upstream's answer is larger than the 1000-byte limit",
    });
  });

  it("refuses a streamed answer once it passes the cap, and counts after decompression", async () => {
    await expect(client().request({ url: "/streamed-large" })).rejects.toMatchObject({ reason: "too_large" });
    await expect(client().request({ url: "/gzip-bomb" })).rejects.toMatchObject({ reason: "too_large" });
    const small = await client().request({ url: "/streamed-large", maxResponseBytes: 5000 });
    expect(small.text).toBe("y".repeat(5000));
  });

  it("refuses a redirect by default and does not follow it", async () => {
    const before = upstream.requests.length;
    const err = await client()
      .request({ url: "/redirect" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect(err).toMatchObject({
      reason: "redirect",
      status: 302,
      message: "the test upstream answered with a redirect, which is not followed",
    });
    expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(["/redirect"]);
  });

  it("answers a redirect as its status when told (health probes), without following it", async () => {
    const before = upstream.requests.length;
    const answer = await client().request({ url: "/redirect", returnRedirects: true });
    expect(answer).toMatchObject({ status: 302, ok: false });
    expect(answer.headers.location).toBe("/echo");
    expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(["/redirect"]);
  });

  it("follows redirects when told, up to the limit", async () => {
    const answer = await client().request({ url: "/redirect", maxRedirects: 1 });
    expect(answer.url.pathname).toBe("/echo");
    expect(answer.json()).toMatchObject({ method: "GET" });
  });

  it("closes a redirect's connection at once, its body unread, whether the redirect is followed or refused", async () => {
    // A redirect whose body never ends: left open, its connection would outlive the call.
    const closed: string[] = [];
    const server = createServer((req, res) => {
      req.socket.once("close", () => closed.push(req.url ?? ""));
      if (req.url === "/final") return sendJson(res, 200, { ok: true });
      res.writeHead(302, { location: "/final", "content-type": "text/plain" });
      res.write("the body of this redirect never ends");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const slow = createOutboundClient({ name: "the trickler", baseUrl: base, timeoutMs: 600_000 });
    try {
      const followed = await slow.request({ url: "/followed", maxRedirects: 1 });
      expect(followed.json()).toEqual({ ok: true });
      await expect(slow.request({ url: "/refused" })).rejects.toMatchObject({ reason: "redirect" });
      // Without the fix these two stay open until the ten-minute deadline.
      await expect.poll(() => [...closed].sort()).toEqual(expect.arrayContaining(["/followed", "/refused"]));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("keeps credentials on same-origin hops and drops them (and the sensitive headers) on another origin", async () => {
    // Another port is another origin.
    const other = await startFakeUpstream((req, res) => {
      const path = req.url ?? "/";
      if (path.startsWith("/back?")) {
        res.writeHead(302, { location: new URL(path, "http://x").searchParams.get("to") ?? "/" });
        return void res.end();
      }
      sendJson(res, 200, { ok: true });
    });
    const headers = {
      Authorization: "Bearer secret-token",
      cookie: "sid=secret-cookie",
      "Proxy-Authorization": "Basic c2VjcmV0",
      "X-Payment": "signed-payment",
      "x-plain": "kept",
    };
    const credentials = ["authorization", "cookie", "proxy-authorization", "x-payment"];
    const seen = (r: { headers: Record<string, unknown> }) =>
      Object.fromEntries(["x-plain", ...credentials].map((h) => [h, r.headers[h] ?? null]));
    try {
      const before = upstream.requests.length;
      const same = await client().request({
        url: "/redirect",
        maxRedirects: 1,
        headers,
        sensitiveHeaders: ["x-payment"],
      });
      expect(same.status).toBe(200);
      expect(upstream.requests.slice(before).map(seen)).toEqual([
        {
          "x-plain": "kept",
          authorization: "Bearer secret-token",
          cookie: "sid=secret-cookie",
          "proxy-authorization": "Basic c2VjcmV0",
          "x-payment": "signed-payment",
        },
        {
          "x-plain": "kept",
          authorization: "Bearer secret-token",
          cookie: "sid=secret-cookie",
          "proxy-authorization": "Basic c2VjcmV0",
          "x-payment": "signed-payment",
        },
      ]);

      const cross = await client().request({
        method: "POST",
        url: `/redirect-to?to=${encodeURIComponent(`${other.url}/landing`)}`,
        body: "payload",
        maxRedirects: 1,
        headers,
        sensitiveHeaders: ["X-PAYMENT"],
      });
      expect(cross.json()).toEqual({ ok: true });
      const landed = other.requests.at(-1);
      expect(landed?.path).toBe("/landing");
      // A 307 keeps the method and body; only the credentials stay behind.
      expect(landed?.body.toString()).toBe("payload");
      expect(landed && seen(landed)).toEqual({
        "x-plain": "kept",
        authorization: null,
        cookie: null,
        "proxy-authorization": null,
        "x-payment": null,
      });

      // Once dropped they stay dropped, also when a later hop comes back to the first origin.
      const roundTrip = await client().request({
        url: `/redirect-to?to=${encodeURIComponent(`${other.url}/back?to=${encodeURIComponent(`${upstream.url}/echo`)}`)}`,
        maxRedirects: 2,
        headers,
        sensitiveHeaders: ["x-payment"],
      });
      expect(roundTrip.json()).toMatchObject({ token: null });
      const returned = upstream.requests.at(-1);
      expect(returned?.path).toBe("/echo");
      expect(returned && seen(returned)).toMatchObject({
        authorization: null,
        "x-payment": null,
        "x-plain": "kept",
      });
    } finally {
      await other.close();
    }
  });

  it("times out when the upstream never answers, and when the body never ends", async () => {
    await expect(client().request({ url: "/silent", timeoutMs: 100 })).rejects.toMatchObject({
      reason: "timeout",
      timeoutMs: 100,
      message: "the test upstream timed out after 100 ms",
    });
    await expect(client().request({ url: "/trickle", timeoutMs: 100 })).rejects.toMatchObject({
      reason: "timeout",
    });
  });

  it("names a call the caller gave up as aborted", async () => {
    const controller = new AbortController();
    const call = client().request({ url: "/silent", signal: controller.signal });
    controller.abort();
    await expect(call).rejects.toMatchObject({
      reason: "aborted",
      message: "the call to the test upstream was given up",
    });
  });

  it("names an unreachable upstream with the socket error", async () => {
    const closed = await startFakeUpstream(() => undefined);
    await closed.close();
    await expect(
      createOutboundClient({ name: "the closed upstream" }).request({ url: `${closed.url}/x` }),
    ).rejects.toMatchObject({
      reason: "unreachable",
      socketCode: "ECONNREFUSED",
      message: "the closed upstream could not be reached: connection refused (ECONNREFUSED)",
    });
  });

  it("says whether the request went out before the failure (whether the upstream may have acted on it)", async () => {
    const closed = await startFakeUpstream(() => undefined);
    await closed.close();
    const refused = await createOutboundClient()
      .request({ method: "POST", url: `${closed.url}/x`, json: { work: 1 } })
      .catch((err: OutboundError) => err);
    expect(refused).toMatchObject({ reason: "unreachable", requestSent: false });
    const before = upstream.requests.length;
    const timedOut = await client()
      .request({ method: "POST", url: "/silent", json: { work: 1 }, timeoutMs: 100 })
      .catch((err: OutboundError) => err);
    expect(timedOut).toMatchObject({ reason: "timeout", requestSent: true });
    expect(upstream.requests.slice(before).map((r) => r.body.toString())).toEqual(['{"work":1}']);
    const cut = await client()
      .request({ url: "/declared-large" })
      .catch((err: OutboundError) => err);
    expect(cut).toMatchObject({ reason: "too_large", requestSent: true });
  });

  it("applies the URL guard only to clients given a policy", async () => {
    const guarded = createOutboundClient({ name: "the page", policy: outboundPolicy() });
    await expect(guarded.request({ url: `${upstream.url}/echo` })).rejects.toMatchObject({
      reason: "refused",
    });
    guarded.close();
    const configured = await createOutboundClient({ name: "the agent" }).request({
      url: `${upstream.url}/echo`,
    });
    expect(configured.status).toBe(200);
  });
});
