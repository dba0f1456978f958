import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, api, apiErrorOf, messageOf } from "./api";

describe("apiErrorOf: the web's error bodies", () => {
  it("reads the web's shape {error: message, code} and the relayed {error: code, message}", () => {
    const web = apiErrorOf(new Response(null, { status: 400 }), {
      error: "name is required",
      code: "bad_request",
    });
    expect(web).toMatchObject({ status: 400, code: "bad_request", message: "name is required" });
    const relayed = apiErrorOf(new Response(null, { status: 503 }), {
      error: "not_configured",
      message: "no hosting platform",
    });
    expect(relayed).toMatchObject({ status: 503, code: "not_configured", message: "no hosting platform" });
    const empty = apiErrorOf(new Response(null, { status: 502 }), {});
    expect(empty).toMatchObject({
      code: "error",
      message: "request failed (502)",
      retryAfterSeconds: undefined,
    });
  });

  it("takes retryAfterSeconds from the body, else from Retry-After in seconds or as a date", () => {
    const body = apiErrorOf(new Response(null, { status: 429, headers: { "retry-after": "9" } }), {
      error: "too many chats; try again later",
      code: "rate_limited",
      retryAfterSeconds: 42,
    });
    expect(body.retryAfterSeconds).toBe(42);
    expect(messageOf(body)).toBe("too many chats; try again later (try again in 42 s)");
    const header = apiErrorOf(new Response(null, { status: 429, headers: { "retry-after": "7" } }), {});
    expect(header.retryAfterSeconds).toBe(7);
    const date = new Date(Date.now() + 120_000).toUTCString();
    const dated = apiErrorOf(new Response(null, { status: 503, headers: { "retry-after": date } }), {});
    expect(dated.retryAfterSeconds).toBeGreaterThan(100);
    expect(dated.retryAfterSeconds).toBeLessThanOrEqual(120);
  });
});

describe("api() against a real server", () => {
  let base = "";
  const server = createServer((req, res) => {
    if (req.url === "/ok") {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: req.method, type: req.headers["content-type"] ?? null, body }));
      });
      return;
    }
    if (req.url === "/gone") {
      res.writeHead(204);
      res.end();
      return;
    }
    res.writeHead(429, { "content-type": "application/json", "retry-after": "30" });
    res.end(JSON.stringify({ error: "too many requests; try again later", code: "rate_limited" }));
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("GETs without a body, POSTs JSON, and answers undefined for 204", async () => {
    expect(await api(`${base}/ok`)).toEqual({ method: "GET", type: null, body: "" });
    expect(await api(`${base}/ok`, { json: { a: 1 } })).toEqual({
      method: "POST",
      type: "application/json",
      body: '{"a":1}',
    });
    expect(await api(`${base}/gone`, { method: "DELETE" })).toBeUndefined();
  });

  it("throws ApiError with the code and Retry-After of a refusal", async () => {
    const err = await api(`${base}/limited`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 30 });
  });
});
