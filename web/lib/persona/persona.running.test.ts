/**
 * `POST /api/runtime/character-qa` through the running web server (a real client, `fetch`), against the fake
 * agent answering a run as the wrapper does (`run` beside the summary) and with the summary alone (the summary
 * with the new run last of `history`, issue 25 item 4).
 */
import {
  type FakeAgentRuntime,
  sendJson,
  startFakeAgentRuntime,
  startFakeUpstream,
} from "@svc/common/testing";
import { RUNNING_SESSION_SECRET, useRunningServers } from "@svc/common/testing/running-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployTestAgent, TEST_DATA_ENCRYPTION_KEY } from "../health/testing/agents";
import { type CookieJar, signedInUser, useWebTestContext } from "../infra/testing";

const { clock } = useWebTestContext({
  DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
  SESSION_SECRET: RUNNING_SESSION_SECRET,
});
const servers = useRunningServers({ web: { DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY } });

const TOKEN = "c".repeat(64);
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

let runtime: FakeAgentRuntime;
beforeAll(async () => {
  // Sessions made here are checked by the server's own clock.
  clock.set(Date.now());
  runtime = await startFakeAgentRuntime({ token: TOKEN, wrapper: true, judge: () => 0.75 });
});
afterAll(() => runtime.close());

async function runEvaluation(jar: CookieJar, body: unknown) {
  const res = await fetch(`${servers.web.url}/api/runtime/character-qa`, {
    method: "POST",
    headers: { cookie: jar.header(), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The run the fake recorded last, as the summary's history lists it. */
const lastRecorded = () => {
  const { baseline: _baseline, ...run } = runtime.evaluations.at(-1) ?? {};
  return run;
};

describe("POST /api/runtime/character-qa, the agent's answer", () => {
  it("in the spec's shape (the new run last of history): 200 with that run", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: runtime.url, token: TOKEN, fake: runtime });
    runtime.personaRunAnswer = "spec";
    const first = await runEvaluation(jar, { probeSet: "quick", dimensions: ["voice", "refusal"] });
    expect(first.status).toBe(200);
    expect(first.body.run).toEqual(lastRecorded());
    expect(first.body.run).toMatchObject({
      probeSet: "quick",
      dimensions: ["voice", "refusal"],
      scores: { voice: 0.75, refusal: 0.75 },
      overallScore: 0.75,
      driftDetected: false,
    });
    expect(first.body.history).toEqual([lastRecorded()]);

    const second = await runEvaluation(jar, {});
    expect(second.status).toBe(200);
    expect(second.body.run).toEqual(lastRecorded());
    expect(second.body.history.map((run: Json) => run.id)).toEqual(runtime.evaluations.map((run) => run.id));
    expect(second.body.scores).toEqual({ voice: 0.75, emotion: 0.75, knowledge: 0.75, refusal: 0.75 });
  });

  it("in the wrapper's shape (`run` with its probes beside the summary): 200 with that run", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: runtime.url, token: TOKEN, fake: runtime });
    runtime.personaRunAnswer = "wrapper";
    const { status, body } = await runEvaluation(jar, { probeSet: "quick", dimensions: ["emotion"] });
    expect(status).toBe(200);
    expect(body.run).toEqual({
      ...lastRecorded(),
      probes: [
        { dimension: "emotion", prompt: "emotion probe 1", answer: "echo: emotion probe 1", score: 0.75 },
      ],
    });
    expect(body.history.at(-1)).toEqual(lastRecorded());
  });

  it("with neither `run` nor a run in history: 502, not an evaluation", async () => {
    const agent = await startFakeUpstream((req, res) => {
      if (req.url?.startsWith("/api/identity")) return sendJson(res, 404, {});
      sendJson(res, 200, {
        scores: { voice: null, emotion: null, knowledge: null, refusal: null },
        driftDetected: false,
        history: [],
      });
    });
    try {
      const { user, jar } = await signedInUser();
      // An open agent (no token): nothing secret is sent, so no identity proof is asked for.
      await deployTestAgent(user.id, { url: agent.url, token: null });
      const { status, body } = await runEvaluation(jar, {});
      expect(status).toBe(502);
      expect(body).toMatchObject({
        code: "agent_unreachable",
        error: "the agent's answer is not a persona evaluation",
      });
      expect(agent.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /api/eval/character/run"]);
    } finally {
      await agent.close();
    }
  });
});
