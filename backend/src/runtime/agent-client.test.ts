/**
 * Every call to an agent goes to the URL it is given (the agent's stored URL), once the wrapper there proved
 * it is the agent's (`GET /api/identity`), refuses redirects (the token never reaches another address) and
 * caps the answer's size; against loopback fakes.
 */

import { AGENT_MAX_RESPONSE_BYTES, AgentCallError, requestAgent } from "@svc/common";
import {
  answerAgentIdentity,
  type FakeUpstream,
  sendJson,
  startAgentImpostor,
  startFakeUpstream,
} from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAgentConfig, resetAgentMemory, writeAgentConfig } from "./agent-client";

let elsewhere: FakeUpstream;
const opened: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  elsewhere = await startFakeUpstream((_req, res) => sendJson(res, 200, { config: { stolen: true } }));
});
afterAll(async () => {
  await Promise.all([elsewhere, ...opened].map((u) => u.close()));
});

const PASSWORD = "tok";
const CREDENTIALS = { token: "gateway-token", adminPassword: PASSWORD };

/** A fake agent wrapper holding PASSWORD: it proves its identity, `handler` answers everything else. */
async function agent(handler: Parameters<typeof startFakeUpstream>[0]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream((req, res, body) =>
    answerAgentIdentity(req, res, PASSWORD) ? undefined : handler(req, res, body),
  );
  opened.push(upstream);
  return upstream;
}

/** What the agent received besides the identity challenge. */
const calls = (upstream: FakeUpstream) =>
  upstream.requests.filter((r) => !r.path.startsWith("/api/identity"));

describe("agent calls", () => {
  it("send the token to the agent's URL and read its JSON answer", async () => {
    const wrapper = await agent((_req, res) => sendJson(res, 200, { config: { gateway: { port: 18789 } } }));
    expect(await readAgentConfig(`${wrapper.url}/`, "tok")).toEqual({ gateway: { port: 18789 } });
    expect(wrapper.requests[0].path).toMatch(/^\/api\/identity\?challenge=[0-9a-f]{64}$/);
    expect(wrapper.requests[0].headers.authorization).toBeUndefined();
    expect(calls(wrapper)[0]).toMatchObject({ method: "GET", path: "/api/config" });
    expect(calls(wrapper)[0].headers.authorization).toBe("Bearer tok");
  });

  it("send nothing to an address whose wrapper does not prove it is the agent's", async () => {
    const impostor = await startAgentImpostor();
    opened.push(impostor);
    const notProven = { reason: "identity" };
    await expect(readAgentConfig(impostor.url, "tok")).rejects.toMatchObject(notProven);
    await expect(writeAgentConfig(impostor.url, "tok", { a: 1 })).rejects.toMatchObject(notProven);
    await expect(resetAgentMemory(impostor.url, CREDENTIALS)).rejects.toMatchObject({
      message: `POST /api/memory/reset: the agent at 127.0.0.1:${impostor.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`,
      reason: "identity",
    });
    expect(impostor.requests.map((r) => r.path.split("?")[0])).toEqual([
      "/api/identity",
      "/api/identity",
      "/api/identity",
    ]);
    expect(impostor.credentials).toEqual([]);
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
      expect(calls(wrapper)).toHaveLength(2);
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
    await expect(resetAgentMemory(declared.url, CREDENTIALS)).rejects.toThrow(tooLarge);
    await expect(resetAgentMemory(streamed.url, CREDENTIALS)).rejects.toMatchObject({
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
    expect(await resetAgentMemory(fits.url, CREDENTIALS, { maxResponseBytes: 64 })).toEqual({ deleted: 3 });
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
