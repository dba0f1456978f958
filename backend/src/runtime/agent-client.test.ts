/**
 * Every call to an agent goes to the URL it is given (the agent's stored URL), refuses redirects (the token
 * never reaches another address) and caps the answer's size; against loopback fakes.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_MAX_RESPONSE_BYTES,
  AgentCallError,
  readAgentConfig,
  requestAgent,
  resetAgentMemory,
  writeAgentConfig,
} from "./agent-client";

let elsewhere: FakeUpstream;
const opened: FakeUpstream[] = [];
beforeAll(async () => {
  elsewhere = await startFakeUpstream((_req, res) => sendJson(res, 200, { config: { stolen: true } }));
});
afterAll(async () => {
  await Promise.all([elsewhere, ...opened].map((u) => u.close()));
});

async function agent(handler: Parameters<typeof startFakeUpstream>[0]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(handler);
  opened.push(upstream);
  return upstream;
}

describe("agent calls", () => {
  it("send the token to the agent's URL and read its JSON answer", async () => {
    const wrapper = await agent((_req, res) => sendJson(res, 200, { config: { gateway: { port: 18789 } } }));
    expect(await readAgentConfig(`${wrapper.url}/`, "tok")).toEqual({ gateway: { port: 18789 } });
    expect(wrapper.requests[0]).toMatchObject({ method: "GET", path: "/api/config" });
    expect(wrapper.requests[0].headers.authorization).toBe("Bearer tok");
  });

  it.each([301, 302, 303, 307, 308])(
    "refuse a %i redirect: the call fails and the target receives nothing",
    async (status) => {
      const wrapper = await agent((_req, res) => {
        res.writeHead(status, { location: `${elsewhere.url}/api/config` });
        res.end();
      });
      const attempt = writeAgentConfig(wrapper.url, "tok", { a: 1 });
      await expect(attempt).rejects.toBeInstanceOf(AgentCallError);
      await expect(attempt).rejects.toMatchObject({
        message: "POST /api/config: the agent answered with a redirect, which is not followed",
        reason: "redirect",
      });
      await expect(readAgentConfig(wrapper.url, "tok")).rejects.toMatchObject({ reason: "redirect" });
      expect(wrapper.requests).toHaveLength(2);
      expect(elsewhere.requests).toEqual([]);
    },
  );

  it("refuse an answer over the cap, whether its length is declared or streamed", async () => {
    const big = JSON.stringify({ deleted: 1, pad: "x".repeat(AGENT_MAX_RESPONSE_BYTES) });
    const declared = await agent((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(big) });
      res.end(big);
    });
    const streamed = await agent((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (let i = 0; i < big.length; i += 64 * 1024) res.write(big.slice(i, i + 64 * 1024));
      res.end();
    });
    const tooLarge = `POST /api/memory/reset: the agent's answer is larger than ${AGENT_MAX_RESPONSE_BYTES} bytes`;
    await expect(resetAgentMemory(declared.url, "tok")).rejects.toThrow(tooLarge);
    await expect(resetAgentMemory(streamed.url, "tok")).rejects.toMatchObject({
      message: tooLarge,
      reason: "too_large",
    });
    // Exactly at the cap is fine.
    const exact = JSON.stringify({ deleted: 3, pad: "" }).length;
    const fits = await agent((_req, res) => {
      const body = JSON.stringify({ deleted: 3, pad: "y".repeat(64 - exact) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    expect(await resetAgentMemory(fits.url, "tok", { maxResponseBytes: 64 })).toEqual({ deleted: 3 });
  });

  it("time out, and can be given up through a signal", async () => {
    const silent = await agent(() => undefined);
    await expect(
      requestAgent(silent.url, { method: "GET", path: "/x", token: null, timeoutMs: 100 }),
    ).rejects.toMatchObject({ message: "the agent did not answer within 0.1 s", reason: "timeout" });
    const controller = new AbortController();
    const call = requestAgent(silent.url, {
      method: "GET",
      path: "/x",
      token: null,
      timeoutMs: 30_000,
      signal: controller.signal,
      subject: "the agent gateway",
    });
    controller.abort();
    await expect(call).rejects.toMatchObject({
      message: "the call to the agent gateway was given up",
      reason: "aborted",
    });
  });
});
