import { describe, expect, it } from "vitest";
import type { ScheduledTaskView } from "./inputs";
import { lastRunOutcome, taskBadge, taskErrorInWords } from "./task-status";

function task(fields: Partial<ScheduledTaskView>): ScheduledTaskView {
  return {
    id: "tsk_1",
    name: "Digest",
    description: null,
    cronSchedule: "* * * * *",
    prompt: "Hi",
    enabled: true,
    lastRun: null,
    nextRun: "2026-11-21T10:01:00.000Z",
    status: "pending",
    attempts: 0,
    maxAttempts: 5,
    lastError: null,
    agentId: "agt_1",
    createdAt: "2026-11-21T10:00:00.000Z",
    updatedAt: "2026-11-21T10:00:00.000Z",
    ...fields,
  };
}

describe("taskBadge: one badge per state", () => {
  it.each([
    [{}, "scheduled"],
    [{ enabled: false }, "disabled"],
    [{ lastError: "boom", attempts: 2 }, "retrying"],
    // Enabled again after failing: attempts are 0, the error of the last run stays; it is scheduled.
    [{ lastError: "boom", attempts: 0 }, "scheduled"],
    [{ status: "running" as const }, "running"],
    [{ status: "running" as const, enabled: false }, "running"],
    [{ status: "failed" as const, lastError: "boom", attempts: 5 }, "failed"],
    [{ status: "failed" as const, enabled: false, lastError: "boom", attempts: 5 }, "failed"],
    [{ status: "completed" as const, nextRun: null }, "completed"],
    [{ status: "completed" as const, enabled: false }, "disabled"],
  ])("%j reads %s", (fields, word) => {
    expect(taskBadge(task(fields)).word).toBe(word);
  });
});

describe("lastRunOutcome", () => {
  it("not run yet, succeeded at lastRun, or failed with its attempts and retry", () => {
    expect(lastRunOutcome(task({}))).toEqual({ kind: "none" });
    expect(lastRunOutcome(task({ lastRun: "2026-11-21T09:00:00.000Z" }))).toEqual({
      kind: "succeeded",
      at: "2026-11-21T09:00:00.000Z",
    });
    expect(
      lastRunOutcome(task({ lastRun: "2026-11-21T09:00:00.000Z", lastError: "boom", attempts: 2 })),
    ).toEqual({
      kind: "failed",
      attempts: 2,
      maxAttempts: 5,
      retryAt: "2026-11-21T10:01:00.000Z",
      gaveUp: false,
    });
    expect(lastRunOutcome(task({ status: "failed", lastError: "boom", attempts: 5, nextRun: null }))).toEqual(
      { kind: "failed", attempts: 5, maxAttempts: 5, retryAt: null, gaveUp: true },
    );
    expect(lastRunOutcome(task({ enabled: false, lastError: "boom", attempts: 1 }))).toMatchObject({
      retryAt: null,
    });
  });
});

describe("taskErrorInWords", () => {
  it("an agent's JSON error answer: a sentence with its message, the JSON behind the toggle", () => {
    const body = '{"error":{"message":"Unauthorized","type":"unauthorized"}}';
    expect(taskErrorInWords(`the agent gateway answered HTTP 401: ${body}`)).toEqual({
      summary: "The agent refused the platform's credentials (HTTP 401): Unauthorized.",
      details: JSON.stringify(JSON.parse(body), null, 2),
    });
  });

  it("a body cut at 200 characters still gives its message; the cut text is the details", () => {
    const body = `{"ok":false,"error":"the runtime is not ready yet","hint":"${"x".repeat(300)}`.slice(
      0,
      200,
    );
    const words = taskErrorInWords(`the agent gateway answered HTTP 503: ${body}`);
    expect(words.summary).toBe("The agent failed while answering (HTTP 503): the runtime is not ready yet.");
    expect(words.details).toBe(body);
  });

  it("a status without a body, and plain messages, read as sentences without details", () => {
    expect(taskErrorInWords("the agent gateway answered HTTP 404: ")).toEqual({
      summary: "The agent has no chat endpoint at its address (HTTP 404).",
      details: null,
    });
    expect(taskErrorInWords("agent agt_1762_ab12 is stopped, not running: nothing was sent to it")).toEqual({
      summary: "The agent is stopped, not running: nothing was sent to it.",
      details: null,
    });
    expect(taskErrorInWords("the agent's run failed: LLM request timed out.")).toEqual({
      summary: "The agent's AI run failed: LLM request timed out.",
      details: null,
    });
  });

  it("other text with JSON in it: the words before it, its message, the JSON behind the toggle", () => {
    expect(taskErrorInWords('the agent gateway is unusable: {"message":"bad config"}')).toEqual({
      summary: "The agent gateway is unusable: bad config.",
      details: '{\n  "message": "bad config"\n}',
    });
  });
});
