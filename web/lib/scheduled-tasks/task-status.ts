/**
 * A scheduled task's state in words for the dashboard (issue 26 item 5): one badge per state, the last
 * run's outcome, and the scheduler's `lastError` said as a sentence, its raw text (JSON an agent answered,
 * pretty-printed) kept for a details toggle.
 */
import type { ScheduledTaskView } from "./inputs";

export interface TaskBadge {
  word: "running" | "failed" | "disabled" | "completed" | "retrying" | "scheduled";
  /** The status badge's tone (components/ui StatusBadge). */
  tone: "ok" | "warn" | "bad" | "info" | "neutral";
}

/**
 * The one badge of a task: what it does now. A disabled task reads `disabled` (not `pending`); a pending
 * one whose last attempt failed reads `retrying`; otherwise `scheduled`. `running` and `failed` win over
 * `disabled`: a run under way ends either way, and a failed task needs the owner whether enabled or not.
 */
export function taskBadge(task: ScheduledTaskView): TaskBadge {
  if (task.status === "running") return { word: "running", tone: "info" };
  if (task.status === "failed") return { word: "failed", tone: "bad" };
  if (!task.enabled) return { word: "disabled", tone: "neutral" };
  if (task.status === "completed") return { word: "completed", tone: "neutral" };
  if (task.lastError && task.attempts > 0) return { word: "retrying", tone: "warn" };
  return { word: "scheduled", tone: "ok" };
}

export type RunOutcome =
  | { kind: "none" }
  | { kind: "succeeded"; at: string }
  | { kind: "failed"; attempts: number; maxAttempts: number; retryAt: string | null; gaveUp: boolean };

/**
 * How the task's last run went: the scheduler clears `lastError` on a success (and sets `lastRun`), and
 * sets it on a failure (counting `attempts` until `maxAttempts`, then `failed`).
 */
export function lastRunOutcome(task: ScheduledTaskView): RunOutcome {
  if (task.lastError !== null) {
    return {
      kind: "failed",
      attempts: task.attempts,
      maxAttempts: task.maxAttempts,
      retryAt: task.status === "pending" && task.enabled && task.attempts > 0 ? task.nextRun : null,
      gaveUp: task.status === "failed",
    };
  }
  return task.lastRun ? { kind: "succeeded", at: task.lastRun } : { kind: "none" };
}

export interface ErrorInWords {
  /** One sentence a person reads. */
  summary: string;
  /** The scheduler's text as it is (JSON pretty-printed), when it says more than the sentence; else null. */
  details: string | null;
}

/** What an HTTP status from the agent means for a task. */
function statusInWords(status: number): string {
  if (status === 401 || status === 403) return "The agent refused the platform's credentials";
  if (status === 404) return "The agent has no chat endpoint at its address";
  if (status === 408 || status === 504) return "The agent took too long to answer";
  if (status === 413) return "The prompt is too large for the agent";
  if (status === 429) return "The agent is receiving too many requests";
  if (status >= 500) return "The agent failed while answering";
  return "The agent refused the prompt";
}

/** The message inside an error body (`{error: {message}}`, `{error}`, `{message}`, `{detail}`), if any. */
function messageIn(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === "object") {
      const o = parsed as Record<string, unknown>;
      const error = o.error;
      if (error && typeof error === "object") {
        const message = (error as Record<string, unknown>).message;
        if (typeof message === "string" && message.trim()) return message.trim();
      }
      for (const value of [error, o.message, o.detail]) {
        if (typeof value === "string" && value.trim()) return value.trim();
      }
    }
    return null;
  } catch {
    // The scheduler keeps the first 200 characters of a body: a cut JSON still names its message.
    const match = /"(?:message|error|detail)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(body);
    return match?.[1]?.trim() || null;
  }
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function sentence(text: string): string {
  const trimmed = text.trim().replace(/^[a-z]/, (c) => c.toUpperCase());
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

const GATEWAY_ANSWER = /^the agent gateway answered HTTP (\d{3}): ?([\s\S]*)$/;
const RUN_FAILED = /^the agent's run failed: ([\s\S]*)$/;
/** The scheduler names the agent by its id; the page names the agent beside the error already. */
const AGENT_ID = /\bagent agt_[0-9A-Za-z_-]+/g;

/** The task's `lastError` as a sentence, and its raw text when the sentence leaves something out. */
export function taskErrorInWords(lastError: string): ErrorInWords {
  const raw = lastError.trim();
  const answered = GATEWAY_ANSWER.exec(raw);
  if (answered) {
    const status = Number(answered[1]);
    const body = answered[2].trim();
    const message = body ? messageIn(body) : null;
    const summary = sentence(`${statusInWords(status)} (HTTP ${status})${message ? `: ${message}` : ""}`);
    return { summary, details: body ? pretty(body) : null };
  }
  const run = RUN_FAILED.exec(raw);
  if (run) return { summary: sentence(`The agent's AI run failed: ${run[1]}`), details: null };
  const named = raw.replace(AGENT_ID, "the agent");
  const json = /[{[]/.exec(named);
  if (!json) return { summary: sentence(named), details: null };
  // Words before a JSON body are the sentence; the body goes behind the toggle.
  const body = named.slice(json.index);
  const before = named.slice(0, json.index).replace(/[\s:]+$/, "");
  const message = messageIn(body);
  const summary = before
    ? sentence(`${before}${message ? `: ${message}` : ""}`)
    : sentence(message ?? "The agent answered an error");
  return { summary, details: pretty(body) };
}
