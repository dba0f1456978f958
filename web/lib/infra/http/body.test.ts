/**
 * The one body reader: a declared Content-Length over the limit is refused before a byte is read, a body
 * without one is cut off as soon as it passes the limit, and a refused request changes nothing.
 */
import { apiKeys, processedSecurityEvents, users } from "@svc/db/schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { POST as createKey } from "@/app/api/keys/route";
import { POST as passkeyAuthOptions } from "@/app/api/passkey/auth/options/route";
import { POST as register } from "@/app/api/register/route";
import { POST as risc } from "@/app/api/security/risc/route";
import { BROWSER_UA, call, signedInUser, useWebTestContext, webContext } from "../testing";
import { MAX_BODY_BYTES, MAX_PUBLIC_BODY_BYTES, readBody, readJson } from "./body";
import { CLIENT_IP_HEADER } from "./client-ip";

useWebTestContext();

const KB = 1024;
const db = () => webContext().db;
const countRows = async (table: typeof users | typeof apiKeys | typeof processedSecurityEvents) =>
  (await db().select().from(table)).length;

/**
 * A body stream of `chunks` chunks of `chunkBytes` bytes (spaces), pulled only on demand, that counts its
 * reads: a reader that reads everything before judging the size is caught by the count.
 */
function countedStream(chunkBytes = 16 * KB, chunks = 64) {
  const state = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (state.pulls === chunks) return controller.close();
        state.pulls += 1;
        controller.enqueue(new Uint8Array(chunkBytes).fill(0x20));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

/** A browser-like POST with a streamed body and no Content-Length (what chunked transfer gives). */
function streamedPost(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
  return new Request(new URL(path, "http://localhost:3000"), {
    method: "POST",
    headers: { "user-agent": BROWSER_UA, [CLIENT_IP_HEADER]: "198.51.100.40", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

/** A stream of exactly `text`, in 1 KB pieces, with no Content-Length. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + KB));
      offset += KB;
    },
  });
}

const signUp = (password: string) => ({ email: `big-${Math.random()}@example.com`, password });

describe("readBody", () => {
  it("refuses a declared Content-Length over the limit without reading the body", async () => {
    const { stream, state } = countedStream();
    const request = streamedPost("/x", stream, { "content-length": String(64 * KB + 1) });
    await expect(readBody(request, { maxBytes: 64 * KB })).rejects.toMatchObject({
      status: 413,
      code: "payload_too_large",
    });
    expect(state.pulls).toBe(0);
  });

  it("stops reading a body without Content-Length as soon as it passes the limit", async () => {
    const { stream, state } = countedStream(16 * KB);
    await expect(readBody(streamedPost("/x", stream), { maxBytes: 64 * KB })).rejects.toMatchObject({
      status: 413,
    });
    // 4 chunks are exactly 64 KB (allowed); the 5th passes the limit and the stream is cancelled.
    expect(state.pulls).toBe(5);
    expect(state.cancelled).toBe(true);
  });

  it("returns a body of exactly the limit, and an absent body as empty", async () => {
    const text = "a".repeat(64 * KB);
    const body = await readBody(streamedPost("/x", streamOf(text)), { maxBytes: 64 * KB });
    expect(body.toString()).toBe(text);
    const empty = await readBody(new Request("http://localhost:3000/x", { method: "POST" }));
    expect(empty.length).toBe(0);
  });

  it("defaults to 1 MB", async () => {
    expect(MAX_BODY_BYTES).toBe(1024 * KB);
    expect(MAX_PUBLIC_BODY_BYTES).toBe(64 * KB);
    const { stream, state } = countedStream(256 * KB);
    await expect(readBody(streamedPost("/x", stream))).rejects.toMatchObject({ status: 413 });
    expect(state.pulls).toBe(5);
  });
});

describe("readJson", () => {
  const schema = z.object({ a: z.number().optional() });

  it("with optional, an empty body of any type is {}; a non-empty one still needs JSON", async () => {
    const empty = new Request("http://localhost:3000/x", { method: "POST" });
    expect(await readJson(empty, schema, { optional: true })).toEqual({});
    const text = new Request("http://localhost:3000/x", { method: "POST", body: '{"a":1}' });
    await expect(readJson(text, schema, { optional: true })).rejects.toMatchObject({
      status: 400,
      code: "bad_content_type",
    });
    const json = new Request("http://localhost:3000/x", {
      method: "POST",
      body: '{"a":1}',
      headers: { "content-type": "application/json" },
    });
    expect(await readJson(json, schema, { optional: true })).toEqual({ a: 1 });
  });
});

// What the running web answers a body over the limit (413 with its body, read by the client after it
// finished sending): body.running.test.ts. Here: how far each route reads.
describe("public sign-in routes: 64 KB", () => {
  it("POST /api/register refuses a chunked body over 64 KB as soon as it passes: 413, no account", async () => {
    const before = await countRows(users);
    const body = JSON.stringify({ ...signUp("correct horse"), name: "n".repeat(64 * KB) });
    const res = await register(
      streamedPost("/api/register", streamOf(body), { "content-type": "application/json" }),
    );
    expect(res.status).toBe(413);
    const { stream, state } = countedStream(16 * KB, 64);
    const endless = await register(
      streamedPost("/api/register", stream, { "content-type": "application/json" }),
    );
    expect(endless.status).toBe(413);
    expect(state).toEqual({ pulls: 5, cancelled: true });
    expect(await countRows(users)).toBe(before);
  });

  it("POST /api/passkey/auth/options refuses a chunked body over 64 KB", async () => {
    const body = JSON.stringify({ identifier: "x".repeat(64 * KB) });
    const res = await passkeyAuthOptions(
      streamedPost("/api/passkey/auth/options", streamOf(body), { "content-type": "application/json" }),
    );
    expect(res.status).toBe(413);
  });
});

describe("POST /api/security/risc: 64 KB", () => {
  it("stops reading a larger token as soon as it passes the limit, recording nothing", async () => {
    const { stream, state } = countedStream();
    const byStream = await risc(
      streamedPost("/api/security/risc", stream, { "content-type": "application/secevent+jwt" }),
    );
    expect(byStream.status).toBe(413);
    expect(state).toEqual({ pulls: 5, cancelled: true });
    expect(await countRows(processedSecurityEvents)).toBe(0);
  });

  it("reads a token under the limit (then judges it)", async () => {
    const res = await call(risc, {
      method: "POST",
      path: "/api/security/risc",
      body: "e".repeat(64 * KB),
      headers: { "content-type": "application/secevent+jwt" },
    });
    expect(res.status).toBe(400);
  });
});

describe("session routes: 1 MB", () => {
  it("POST /api/keys reads a body past 64 KB (judged by its schema), refuses one past 1 MB: 413, no key", async () => {
    const { jar } = await signedInUser();
    const name = (bytes: number) => ({ name: "k".repeat(bytes) });
    const mid = await call(createKey, { method: "POST", path: "/api/keys", json: name(100 * KB), jar });
    expect(mid.status).toBe(400);
    expect((await mid.json()).error).toBe("Key name must be at most 64 characters");

    const big = await call(createKey, { method: "POST", path: "/api/keys", json: name(1024 * KB), jar });
    expect(big.status).toBe(413);
    const { stream, state } = countedStream(256 * KB, 8);
    const chunked = await createKey(
      streamedPost("/api/keys", stream, { "content-type": "application/json", cookie: jar.header() }),
    );
    expect(chunked.status).toBe(413);
    expect(state).toEqual({ pulls: 5, cancelled: true });
    expect(await countRows(apiKeys)).toBe(0);
  });
});
