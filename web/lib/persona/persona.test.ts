/**
 * /api/runtime/character-qa against a loopback agent (the gateway token checked, a hanging agent for the
 * timeouts) and against the fake agent runtime answering as the wrapper does without a platform backend
 * (its 503 becomes a 502).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { freePort } from "@svc/common";
import {
  answerAgentIdentity,
  type FakeUpstream,
  sendJson,
  startAgentImpostor,
  startFakeAgentRuntime,
  startFakeUpstream,
} from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/runtime/character-qa/route";
import { deployTestAgent, TEST_DATA_ENCRYPTION_KEY } from "../health/testing/agents";
import { makeRequest, signedInUser, useWebTestContext } from "../infra/testing";

useWebTestContext({ DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY });

const TOKEN = "a".repeat(64);
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

const SUMMARY = {
  scores: { voice: 0.9, emotion: 0.8, knowledge: 0.7, refusal: 1 },
  overallScore: 0.85,
  driftDetected: false,
  history: [
    {
      id: "eval_1",
      timestamp: "2026-11-21T09:00:00.000Z",
      probeSet: "default",
      dimensions: ["voice", "emotion", "knowledge", "refusal"],
      overallScore: 0.85,
      driftDetected: false,
      scores: { voice: 0.9, emotion: 0.8, knowledge: 0.7, refusal: 1 },
    },
  ],
};

let agent: FakeUpstream;
let hanging = false;
const held: ServerResponse[] = [];
/** The agent the fake wrapper proves it is (deployTestAgent sets the newest one's password). */
const identity = { adminPassword: "" };

function agentHandler(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  if (answerAgentIdentity(req, res, identity.adminPassword)) return;
  if (hanging) {
    held.push(res);
    return;
  }
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    sendJson(res, 401, { error: { message: "a valid gateway token is required" } });
    return;
  }
  if (req.method === "GET" && req.url === "/api/eval/character") {
    sendJson(res, 200, SUMMARY);
    return;
  }
  if (req.method === "POST" && req.url === "/api/eval/character/run") {
    const input = JSON.parse(body.toString()) as Json;
    const run = {
      id: "eval_2",
      timestamp: "2026-11-21T10:00:00.000Z",
      probeSet: input.probeSet,
      dimensions: input.dimensions,
      overallScore: 0.5,
      driftDetected: true,
      scores: Object.fromEntries((input.dimensions as string[]).map((d) => [d, 0.5])),
      probes: [{ dimension: input.dimensions[0], prompt: "Hi", answer: "Hello", score: 0.5 }],
    };
    sendJson(res, 200, { ...SUMMARY, driftDetected: true, history: [...SUMMARY.history, run], run });
    return;
  }
  sendJson(res, 404, { error: { message: "no route" } });
}

beforeAll(async () => {
  agent = await startFakeUpstream(agentHandler);
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await agent.close();
});

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
async function read(jar: Jar | undefined) {
  const res = await GET(makeRequest({ path: "/api/runtime/character-qa", jar }));
  return { status: res.status, body: (await res.json()) as Json };
}
async function run(jar: Jar | undefined, json?: unknown, body?: string) {
  const res = await POST(
    makeRequest({
      method: "POST",
      path: "/api/runtime/character-qa",
      jar,
      json,
      body,
      headers: body !== undefined ? { "content-type": "application/json" } : {},
    }),
  );
  return { status: res.status, body: (await res.json()) as Json };
}
/** What the agent received besides its wrapper's identity challenges. */
const sentToAgent = () => agent.requests.filter((r) => !r.path.startsWith("/api/identity"));
const agentCalls = () => sentToAgent().length;

describe("GET /api/runtime/character-qa", () => {
  it("proxies to the agent's GET /api/eval/character with its gateway token", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: agent.url, token: TOKEN, fake: identity });
    const { status, body } = await read(jar);
    expect(status).toBe(200);
    expect(body).toEqual(SUMMARY);
    const sent = sentToAgent().at(-1);
    expect(sent).toMatchObject({ method: "GET", path: "/api/eval/character" });
    expect(sent?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("answers 404 {status: no_agent} without an agent (another user's agent does not count), 401 without a session", async () => {
    const owner = await signedInUser();
    await deployTestAgent(owner.user.id, { url: agent.url, token: TOKEN, fake: identity });
    const { jar } = await signedInUser();
    const before = agentCalls();
    const { status, body } = await read(jar);
    expect(status).toBe(404);
    expect(body).toMatchObject({ status: "no_agent", code: "no_agent" });
    expect((await run(jar, {})).body.status).toBe("no_agent");
    expect(agentCalls()).toBe(before);
    expect((await read(undefined)).status).toBe(401);
  });

  it("answers 502 when the agent refuses the token or answers something that is not an evaluation", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: agent.url, token: "b".repeat(64), fake: identity });
    const refused = await read(jar);
    expect(refused.status).toBe(502);
    expect(refused.body.error).toBe("the agent answered 401: a valid gateway token is required");
  });
});

describe("POST /api/runtime/character-qa", () => {
  it("proxies with probeSet and dimensions, defaulting to `default` and the four dimensions", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: agent.url, token: TOKEN, fake: identity });
    const defaults = await run(jar, undefined, "");
    expect(defaults.status).toBe(200);
    expect(JSON.parse(sentToAgent().at(-1)?.body.toString() ?? "")).toEqual({
      probeSet: "default",
      dimensions: ["voice", "emotion", "knowledge", "refusal"],
    });
    expect(defaults.body.run).toMatchObject({ id: "eval_2", overallScore: 0.5, driftDetected: true });
    expect(defaults.body.history).toHaveLength(2);

    const asked = await run(jar, { probeSet: "quick", dimensions: ["refusal", "voice"] });
    expect(asked.status).toBe(200);
    expect(JSON.parse(sentToAgent().at(-1)?.body.toString() ?? "")).toEqual({
      probeSet: "quick",
      dimensions: ["refusal", "voice"],
    });
    expect(asked.body.run.scores).toEqual({ refusal: 0.5, voice: 0.5 });
    expect(sentToAgent().at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("answers 400 for a body that is not JSON or names a bad dimension, without calling the agent", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: agent.url, token: TOKEN, fake: identity });
    const before = agentCalls();
    const bad = await run(jar, undefined, "{nope");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_json");
    const dims = await run(jar, { dimensions: ["humour"] });
    expect(dims.status).toBe(400);
    expect(dims.body).toMatchObject({
      error: expect.stringMatching(/^Dimensions /),
      field: expect.stringMatching(/^dimensions/),
    });
    const unknown = await run(jar, { probeSet: "default", extra: 1 });
    expect(unknown.status).toBe(400);
    expect(agentCalls()).toBe(before);
  });
});

describe("an agent that does not answer", () => {
  it("is 502 after 10 s (read) and 15 s (run)", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: agent.url, token: TOKEN, fake: identity });
    hanging = true;
    try {
      const [reading, running] = await Promise.all([read(jar), run(jar, {})]);
      expect(reading.status).toBe(502);
      expect(reading.body).toMatchObject({
        code: "agent_unreachable",
        error: "the agent did not answer within 10 s",
      });
      expect(running.status).toBe(502);
      expect(running.body.error).toBe("the agent did not answer within 15 s");
    } finally {
      hanging = false;
    }
  }, 40_000);

  it("an agent that cannot be reached is 502", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: `http://127.0.0.1:${await freePort()}`, token: TOKEN });
    const { status, body } = await read(jar);
    expect(status).toBe(502);
    expect(body.error).toMatch(/could not be reached/);
  });
});

describe("an address the agent's wrapper no longer holds", () => {
  it("another agent listening there gets no token: 502, the agent could not be proven", async () => {
    const impostor = await startAgentImpostor();
    try {
      const { user, jar } = await signedInUser();
      await deployTestAgent(user.id, { url: impostor.url, token: TOKEN });
      const { status, body } = await read(jar);
      expect(status).toBe(502);
      expect(body.error).toBe(
        `the agent at 127.0.0.1:${impostor.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`,
      );
      expect((await run(jar, {})).status).toBe(502);
      expect(impostor.credentials).toEqual([]);
      expect(impostor.requests.map((r) => r.path.split("?")[0])).toEqual(["/api/identity", "/api/identity"]);
    } finally {
      await impostor.close();
    }
  });
});

describe("an agent whose wrapper has no platform backend", () => {
  it("reads its (empty) history, and its 503 for want of a judge becomes a 502 naming the cause", async () => {
    // The fake agent runtime answers the wrapper's persona routes with the wrapper's own shapes (its
    // contract test is in wrapper/src/persona/routes.test.ts); without a judge a run is the wrapper's 503.
    const runtime = await startFakeAgentRuntime({ token: TOKEN, wrapper: true });
    try {
      const { user, jar } = await signedInUser();
      await deployTestAgent(user.id, { url: runtime.url, token: TOKEN, fake: runtime });
      expect(await read(jar)).toEqual({
        status: 200,
        body: {
          scores: { voice: null, emotion: null, knowledge: null, refusal: null },
          overallScore: null,
          driftDetected: false,
          history: [],
        },
      });
      const { status, body } = await run(jar, {});
      expect(status).toBe(502);
      expect(body.error).toBe(
        "the agent answered 503: no platform backend is configured for this agent (PLATFORM_BACKEND_URL is not set): nothing can judge the answers",
      );
      expect(runtime.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`)).toEqual([
        "GET /api/identity",
        "GET /api/eval/character",
        "POST /api/eval/character/run",
      ]);
    } finally {
      await runtime.close();
    }
  });
});
