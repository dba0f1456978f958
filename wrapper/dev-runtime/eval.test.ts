/**
 * The development runtime's persona evaluation, as a process, against a scripted loopback AI provider: the
 * probes go to the model, the model's judgements are parsed into scores, drift is flagged after a drop, the
 * history lives in the runtime's state, and without a provider the run is a 503 naming the cause.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@svc/common";
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = join(import.meta.dirname, "server.mjs");
const TOKEN = "dev-runtime-eval-token-0123456789abcdef";
const PERSONA = "Captain Brine, a gruff but kind old sea captain who speaks in nautical terms.";
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

interface Runtime {
  process: ChildProcess;
  base: string;
  output: () => string;
}

let provider: FakeAiProvider;
let dir = "";
const started: Runtime[] = [];

async function startRuntime(env: Record<string, string>, stateDir: string): Promise<Runtime> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { PLATFORM_BACKEND_URL: _a, PLATFORM_AI_CHAT_URL: _b, ...inherited } = process.env;
  let output = "";
  const child = spawn(process.execPath, [SCRIPT, "--port", String(port)], {
    env: { ...inherited, OPENCLAW_GATEWAY_TOKEN: TOKEN, OPENCLAW_STATE_DIR: stateDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const runtime = { process: child, base, output: () => output };
  started.push(runtime);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${base}/readyz`).catch(() => null);
    if (res?.status === 200) return runtime;
    if (child.exitCode !== null) throw new Error(`the runtime exited ${child.exitCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`the runtime did not get ready: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopRuntime(runtime: Runtime): Promise<void> {
  if (runtime.process.exitCode !== null) return;
  const exited = new Promise((resolve) => runtime.process.once("exit", resolve));
  runtime.process.kill("SIGTERM");
  await exited;
}

/** The judge's verdict per dimension, as the scripted model writes it. */
let verdicts: Record<string, string> = {};

function isJudgeRequest(body: Json): boolean {
  return String(body.messages?.[0]?.content ?? "").startsWith("You evaluate");
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-dev-runtime-eval-"));
  provider = await startFakeAiProvider({ apiKey: TOKEN });
  provider.setResponder((body) => {
    const messages = body.messages as Json[];
    if (isJudgeRequest(body)) {
      const dimension = /Dimension: (\w+)\./.exec(String(messages[1].content))?.[1] ?? "";
      return { content: verdicts[dimension] ?? "no idea" };
    }
    return { content: `Arr, about "${messages.at(-1)?.content}": aye.` };
  });
}, 60_000);

afterAll(async () => {
  for (const runtime of started) await stopRuntime(runtime);
  await provider?.close();
  await rm(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
async function run(runtime: Runtime, body?: unknown, raw?: string) {
  const res = await fetch(`${runtime.base}/api/eval/character/run`, {
    method: "POST",
    headers: auth,
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  return { status: res.status, body: (await res.json()) as Json };
}
async function summary(runtime: Runtime) {
  const res = await fetch(`${runtime.base}/api/eval/character`, { headers: auth });
  return { status: res.status, body: (await res.json()) as Json };
}
const allVerdicts = (score: number) => ({
  voice: JSON.stringify({ score, reason: "ok" }),
  emotion: JSON.stringify({ score, reason: "ok" }),
  knowledge: JSON.stringify({ score, reason: "ok" }),
  refusal: JSON.stringify({ score, reason: "ok" }),
});

describe("persona evaluation (development runtime)", () => {
  let runtime: Runtime;
  beforeAll(async () => {
    runtime = await startRuntime(
      { PLATFORM_AI_CHAT_URL: `${provider.url}/chat/completions`, DEV_RUNTIME_PERSONA: PERSONA },
      join(dir, "with-provider"),
    );
  }, 30_000);

  it("sends every probe to the model and parses the judge's scores per dimension", async () => {
    verdicts = {
      voice: '{"score": 0.9, "reason": "nautical"}',
      emotion: '```json\n{"score": 0.8}\n```',
      knowledge: "Score: 0.6 — mostly right",
      refusal: "1",
    };
    const before = provider.requests.length;
    const { status, body } = await run(runtime, {});
    expect(status).toBe(200);
    expect(body.run).toMatchObject({
      probeSet: "default",
      dimensions: ["voice", "emotion", "knowledge", "refusal"],
      scores: { voice: 0.9, emotion: 0.8, knowledge: 0.6, refusal: 1 },
      overallScore: 0.825,
      driftDetected: false,
    });
    expect(body.run.id).toMatch(/^eval_\d+_[0-9a-f]{10}$/);
    expect(body.run.probes).toHaveLength(12);
    expect(body.scores).toEqual({ voice: 0.9, emotion: 0.8, knowledge: 0.6, refusal: 1 });
    expect(body.driftDetected).toBe(false);

    // 12 probes and 12 judgements; probes carry the persona, judgements the answer they score.
    const sent = provider.requests.slice(before).map((r) => r.body as Json);
    expect(sent).toHaveLength(24);
    const probes = sent.filter((b) => !isJudgeRequest(b));
    expect(probes).toHaveLength(12);
    for (const probe of probes) expect(probe.messages[0]).toEqual({ role: "system", content: PERSONA });
    const judge = sent.find(
      (b) =>
        isJudgeRequest(b) &&
        String(b.messages[1].content).includes("Who wrote the novel Pride and Prejudice?"),
    );
    expect(judge?.messages[1].content).toContain(`Persona description:\n${PERSONA}`);
    expect(judge?.messages[1].content).toContain(
      'Arr, about "Who wrote the novel Pride and Prejudice?": aye.',
    );
  });

  it("flags drift when the overall score falls more than 0.15 below the mean of the previous three runs", async () => {
    verdicts = allVerdicts(0.9);
    expect((await run(runtime, {})).body.run.driftDetected).toBe(false);
    expect((await run(runtime, {})).body.run.driftDetected).toBe(false);
    // Previous three: 0.825, 0.9, 0.9 (mean 0.875): 0.75 is 0.125 below, not drift.
    verdicts = allVerdicts(0.75);
    const small = await run(runtime, {});
    expect(small.body.run).toMatchObject({ overallScore: 0.75, driftDetected: false, baseline: 0.875 });
    // Previous three: 0.9, 0.9, 0.75 (mean 0.85): 0.6 is 0.25 below.
    verdicts = allVerdicts(0.6);
    const drop = await run(runtime, {});
    expect(drop.body.run).toMatchObject({ overallScore: 0.6, driftDetected: true, baseline: 0.85 });
    expect(drop.body.driftDetected).toBe(true);

    const { status, body } = await summary(runtime);
    expect(status).toBe(200);
    expect(body.history.map((h: Json) => [h.overallScore, h.driftDetected])).toEqual([
      [0.825, false],
      [0.9, false],
      [0.9, false],
      [0.75, false],
      [0.6, true],
    ]);
    expect(body.history[4]).toEqual({
      id: drop.body.run.id,
      timestamp: drop.body.run.timestamp,
      probeSet: "default",
      dimensions: ["voice", "emotion", "knowledge", "refusal"],
      overallScore: 0.6,
      driftDetected: true,
      scores: { voice: 0.6, emotion: 0.6, knowledge: 0.6, refusal: 0.6 },
    });
    expect(body).toMatchObject({ driftDetected: true, overallScore: 0.6 });
  });

  it("runs only the dimensions asked, with the probe set asked; bad input is 400 before any model call", async () => {
    verdicts = allVerdicts(0.5);
    const before = provider.requests.length;
    const { status, body } = await run(runtime, { probeSet: "quick", dimensions: ["refusal"] });
    expect(status).toBe(200);
    expect(body.run).toMatchObject({ probeSet: "quick", dimensions: ["refusal"], scores: { refusal: 0.5 } });
    expect(provider.requests.length - before).toBe(2);
    // The other dimensions keep their latest scores.
    expect(body.scores).toEqual({ voice: 0.6, emotion: 0.6, knowledge: 0.6, refusal: 0.5 });

    const count = provider.requests.length;
    const badSet = await run(runtime, { probeSet: "nope" });
    expect(badSet.status).toBe(400);
    expect(badSet.body.error.message).toMatch(/probeSet/);
    const badDims = await run(runtime, { dimensions: ["voice", "humour"] });
    expect(badDims.status).toBe(400);
    expect(badDims.body.error.message).toMatch(/dimensions/);
    expect((await run(runtime, undefined, "{not json")).status).toBe(400);
    expect(provider.requests.length).toBe(count);
  });

  it("a judgement without a number fails the run (502) and records nothing", async () => {
    verdicts = { ...allVerdicts(0.7), knowledge: "I cannot say." };
    const before = (await summary(runtime)).body.history.length;
    const { status, body } = await run(runtime, {});
    expect(status).toBe(502);
    expect(body.error.message).toMatch(/no score/);
    expect((await summary(runtime)).body.history).toHaveLength(before);
  });

  it("keeps the history in the runtime's state across a restart", async () => {
    const before = (await summary(runtime)).body.history;
    await stopRuntime(runtime);
    runtime = await startRuntime(
      { PLATFORM_AI_CHAT_URL: `${provider.url}/chat/completions`, DEV_RUNTIME_PERSONA: PERSONA },
      join(dir, "with-provider"),
    );
    expect((await summary(runtime)).body.history).toEqual(before);
  }, 30_000);
});

describe("persona evaluation without an AI provider", () => {
  it("answers 503 naming the cause; the summary still answers", async () => {
    const runtime = await startRuntime({}, join(dir, "no-provider"));
    const before = provider.requests.length;
    const { status, body } = await run(runtime, {});
    expect(status).toBe(503);
    expect(body.error.message).toMatch(/no AI provider.*PLATFORM_AI_CHAT_URL/);
    expect(provider.requests.length).toBe(before);
    expect((await summary(runtime)).body).toEqual({
      scores: { voice: null, emotion: null, knowledge: null, refusal: null },
      overallScore: null,
      driftDetected: false,
      history: [],
    });
  }, 30_000);
});
