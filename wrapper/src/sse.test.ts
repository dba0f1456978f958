import type { Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import express, { type Response } from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openSse, type SseClient } from "./sse";

const clients: { client: SseClient; res: Response; closedBy?: string }[] = [];
let server: Server;
let port: number;

beforeAll(async () => {
  const app = express();
  app.get("/stream", (req, res) => {
    const record: (typeof clients)[number] = { client: undefined as unknown as SseClient, res };
    record.client = openSse(req, res, {
      pingMs: Number(req.query.pingMs ?? 15_000),
      stallTimeoutMs: 300,
      onClose: () => {
        record.closedBy = "onClose";
      },
    });
    clients.push(record);
    record.client.send({ hello: true });
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function readText(res: globalThis.Response, until: (text: string) => boolean): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

describe("openSse", () => {
  it("frames messages as data: <json>, pings with a comment, and forgets a client that leaves", async () => {
    const before = clients.length;
    const res = await fetch(`http://127.0.0.1:${port}/stream?pingMs=30`);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("connection")).toBe("keep-alive");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const text = await readText(res, (t) => t.includes(": ping\n\n"));
    expect(text.startsWith('data: {"hello":true}\n\n')).toBe(true);
    expect(text).toContain(": ping\n\n");
    const record = clients[before];
    await expect.poll(() => record.closedBy, { interval: 10 }).toBe("onClose");
    expect(record.client.closed).toBe(true);
    expect(record.client.send({ late: true })).toBe(false);
  });

  it("drops messages for a client that does not read, and closes it when it stays stalled", async () => {
    const before = clients.length;
    const socket = connect(port, "127.0.0.1");
    socket.write(`GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause();
    await expect.poll(() => clients.length, { interval: 10 }).toBeGreaterThan(before);
    const slow = clients[before];

    const fast = await fetch(`http://127.0.0.1:${port}/stream`);
    await expect.poll(() => clients.length, { interval: 10 }).toBeGreaterThan(before + 1);
    const quick = clients[before + 1];

    const big = "x".repeat(64 * 1024);
    for (let i = 0; i < 400; i++) slow.client.send({ big, i });
    expect(slow.client.dropped).toBeGreaterThan(0);
    // Memory held for the slow client stays around one message, not 400 of them.
    expect(slow.res.writableLength).toBeLessThan(2 * big.length);

    quick.client.send({ other: "client" });
    const text = await readText(fast, (t) => t.includes('"other"'));
    expect(text).toContain('data: {"other":"client"}\n\n');

    // Keep writing: once the kernel buffers are full too the socket never drains, and the stall timer ends it.
    let held = 0;
    await vi
      .waitFor(
        () => {
          for (let i = 0; i < 50; i++) slow.client.send({ big, i });
          held = Math.max(held, slow.res.writableLength);
          if (slow.closedBy !== "onClose") throw new Error("the stalled client is still open");
        },
        { timeout: 20_000, interval: 20 },
      )
      .catch(() => undefined);
    expect(held).toBeLessThan(2 * big.length);
    expect(slow.closedBy).toBe("onClose");
    expect(slow.client.closed).toBe(true);
    socket.destroy();
  });
});
