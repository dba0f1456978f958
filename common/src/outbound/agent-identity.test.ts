/**
 * A call that carries an agent's secret goes out only on a connection on which the agent's wrapper proved it
 * holds the agent's key: an impostor on the agent's address (another agent on the port the wrapper left
 * free, or one relaying the challenge to the real wrapper elsewhere) receives the challenge and nothing else.
 * Loopback fakes: the one fake agent (answering the identity challenge as the wrapper does) and the impostor.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import net, { type AddressInfo } from "node:net";
import tls from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AgentImpostor,
  type FakeAgentRuntime,
  startAgentImpostor,
  startFakeAgentRuntime,
} from "../../testing";
import { wrapperIdentityProof } from "../agent-tokens";
import { AgentCallError, requestAgent } from "./agent";

const TOKEN = "gateway-token-of-agent-b";
const PASSWORD = "wrapper-admin-password-of-agent-b";
const open: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function agentB(port?: number): Promise<FakeAgentRuntime> {
  const agent = await startFakeAgentRuntime({ token: TOKEN, adminPassword: PASSWORD, port });
  open.push(agent);
  return agent;
}

async function impostor(options: Parameters<typeof startAgentImpostor>[0]): Promise<AgentImpostor> {
  const started = await startAgentImpostor(options);
  open.push(started);
  return started;
}

/** What the chat job and the scheduler send: the gateway token, with the agent's key to prove. */
function chat(url: string, identityKey: string | undefined = PASSWORD) {
  return requestAgent(url, {
    method: "POST",
    path: "/v1/chat/completions",
    token: TOKEN,
    body: { model: "openclaw", messages: [{ role: "user", content: "hello" }] },
    timeoutMs: 5_000,
    identityKey,
  });
}

const paths = (agent: FakeAgentRuntime) => agent.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`);

describe("calls that carry an agent's secret", () => {
  it("reach the agent once it proved its identity, and reuse the proven connection", async () => {
    const agent = await agentB();
    expect((await chat(agent.url)).status).toBe(200);
    expect((await chat(agent.url)).status).toBe(200);
    expect(paths(agent)).toEqual([
      "GET /api/identity",
      "POST /v1/chat/completions",
      "POST /v1/chat/completions",
    ]);
    // The challenge itself carries nothing secret.
    expect(agent.requests[0].headers.authorization).toBeUndefined();
    expect(agent.completions.map((c) => c.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it("prove each new connection: concurrent calls each go out on a proven one", async () => {
    const agent = await agentB();
    agent.setDelay(50);
    const answers = await Promise.all(Array.from({ length: 4 }, () => chat(agent.url)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(agent.completions).toHaveLength(4);
    expect(paths(agent).filter((p) => p === "GET /api/identity")).toHaveLength(4);
  });

  it("never reach another agent that took the port after the agent's wrapper stopped", async () => {
    const agent = await agentB();
    expect((await chat(agent.url)).status).toBe(200);
    await agent.close();
    const thief = await impostor({ port: agent.port });
    // The connection the agent's wrapper proved died with it: a call may still find it in the pool before
    // its end is read (it fails: the wrapper is gone), but no call can reach the new holder of the port.
    await expect(chat(agent.url)).rejects.toBeInstanceOf(AgentCallError);
    const attempt = chat(agent.url);
    await expect(attempt).rejects.toMatchObject({ reason: "identity" });
    await expect(attempt).rejects.toThrow(
      `the agent at 127.0.0.1:${agent.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`,
    );
    expect(new Set(thief.requests.map((r) => r.path.split("?")[0]))).toEqual(new Set(["/api/identity"]));
    expect(thief.credentials).toEqual([]);
  });

  it("never reach an impostor that relays the challenge to the agent's wrapper on another port", async () => {
    const agent = await agentB();
    const thief = await impostor({ relayTo: agent.url });
    await expect(chat(thief.url)).rejects.toThrow(
      `(the proof is of a wrapper at 127.0.0.1:${agent.port}, not 127.0.0.1:${thief.port})`,
    );
    expect(thief.credentials).toEqual([]);
    expect(paths(agent)).toEqual(["GET /api/identity"]);
    expect(agent.completions).toEqual([]);
  });

  it("go to a wrapper restarted on the same port once it proved itself again", async () => {
    const agent = await agentB();
    expect((await chat(agent.url)).status).toBe(200);
    await agent.close();
    const restarted = await agentB(agent.port);
    // (The first call may still find the dead connection, as any keep-alive client may.)
    await chat(agent.url).catch((err: unknown) => expect(err).toMatchObject({ reason: "unreachable" }));
    expect((await chat(agent.url)).status).toBe(200);
    expect(paths(restarted).slice(0, 2)).toEqual(["GET /api/identity", "POST /v1/chat/completions"]);
  });

  it("fail, sending nothing, when the agent cannot prove it (no key of its own, or another key)", async () => {
    const unkeyed = await startFakeAgentRuntime({ token: TOKEN });
    open.push(unkeyed);
    await expect(chat(unkeyed.url)).rejects.toThrow("(/api/identity answered HTTP 404)");
    const agent = await agentB();
    await expect(chat(agent.url, "another agent's password")).rejects.toThrow("(wrong proof)");
    expect(unkeyed.completions).toEqual([]);
    expect(agent.completions).toEqual([]);
  });

  it("fail when the wrapper closes the connection its proof was made on", async () => {
    const server = createServer((req, res) => {
      const challenge = new URL(req.url ?? "/", "http://x").searchParams.get("challenge") ?? "";
      const listen = { host: "127.0.0.1", port: (server.address() as AddressInfo).port };
      res.writeHead(200, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ ...listen, proof: wrapperIdentityProof(PASSWORD, challenge, listen) }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    open.push({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await expect(chat(url)).rejects.toThrow("(it closed the connection after its proof)");
  });

  it("over https: a certificate the platform does not trust fails the connection before the challenge", async () => {
    const agent = await agentB();
    const fixtures = new URL("../../testing/fixtures/tls/", import.meta.url);
    const [cert, key] = await Promise.all([
      readFile(new URL("loopback-cert.pem", fixtures)),
      readFile(new URL("loopback-key.pem", fixtures)),
    ]);
    // TLS in front of the agent, as a hosting platform's edge would be (its certificate self-signed here).
    const edge = tls.createServer({ key, cert }, (clear) => {
      const plain = net.connect(agent.port, "127.0.0.1");
      clear.pipe(plain).on("error", () => clear.destroy());
      plain.pipe(clear).on("error", () => plain.destroy());
      clear.on("error", () => plain.destroy());
    });
    await new Promise<void>((resolve) => edge.listen(0, "127.0.0.1", resolve));
    open.push({ close: () => new Promise<void>((resolve) => edge.close(() => resolve())) });
    const url = `https://127.0.0.1:${(edge.address() as AddressInfo).port}`;
    await expect(chat(url)).rejects.toMatchObject({ reason: "unreachable" });
    expect(agent.requests).toEqual([]);
  });

  it("without an identity key go out as before (calls that carry no secret)", async () => {
    const agent = await agentB();
    const answer = await requestAgent(agent.url, {
      method: "GET",
      path: "/healthz",
      token: null,
      timeoutMs: 5_000,
    });
    expect(answer.status).toBe(200);
    expect(paths(agent)).toEqual(["GET /healthz"]);
  });
});
