"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, api, messageOf, usePolling } from "@/components/data";
import type { QueuedChat } from "@/lib/chat/service";
import type { JobPage, PlatformJob } from "@/lib/platform-jobs/inputs";

/** How often a queued or running chat job is re-read. */
export const CHAT_POLL_MS = 1_000;
const HISTORY_PAGE = 20;
const CHAT_JOB_TYPE = "gateway_chat_completion" satisfies PlatformJob["jobType"];

/** One exchange: the user's message and, once there is one, its job. */
export interface ChatTurn {
  /** The job id, or a local id until the job exists. */
  key: string;
  message: string;
  sentAt: string;
  job?: PlatformJob;
  /** Sending failed: nothing was queued. */
  sendError?: { message: string; status: number; retryAt?: string };
  agentName?: string;
}

const isActive = (turn: ChatTurn) => turn.job?.status === "queued" || turn.job?.status === "running";

function turnOfJob(job: PlatformJob): ChatTurn {
  const message = typeof job.payload.message === "string" ? job.payload.message : "";
  return { key: job.id, message, sentAt: job.createdAt, job };
}

/**
 * The conversation with the user's agent: earlier chat jobs (`GET /api/jobs?type=gateway_chat_completion`,
 * newest first, shown oldest first, older pages on demand), and messages sent now through
 * `POST /api/gateway/chat`, each shown at once and followed through `GET /api/jobs/{jobId}` until it ends.
 */
export function useChat() {
  const [turns, setTurns] = useState<ChatTurn[]>([]);
  const [historyLoaded, setHistoryLoaded] = useState(false);
  const [olderCursor, setOlderCursor] = useState<string | null>(null);
  const [historyError, setHistoryError] = useState("");
  const [sending, setSending] = useState(false);
  const localIds = useRef(0);

  const loadHistory = useCallback(async (cursor?: string) => {
    try {
      const params = new URLSearchParams({ type: CHAT_JOB_TYPE, limit: String(HISTORY_PAGE) });
      if (cursor) params.set("cursor", cursor);
      const page = await api<JobPage>(`/api/jobs?${params}`);
      const earlier = page.jobs.map(turnOfJob).reverse();
      setTurns((current) => {
        const known = new Set(current.map((t) => t.key));
        return [...earlier.filter((t) => !known.has(t.key)), ...current];
      });
      setOlderCursor(page.nextCursor);
      setHistoryError("");
    } catch (err) {
      setHistoryError(messageOf(err));
    } finally {
      setHistoryLoaded(true);
    }
  }, []);
  useEffect(() => {
    void loadHistory();
  }, [loadHistory]);

  const update = useCallback(
    (key: string, change: (turn: ChatTurn) => ChatTurn) =>
      setTurns((current) => current.map((turn) => (turn.key === key ? change(turn) : turn))),
    [],
  );

  const active = turns.filter(isActive).map((t) => t.key);
  const activeKey = active.join(",");
  const follow = useCallback(async () => {
    for (const jobId of activeKey ? activeKey.split(",") : []) {
      try {
        const { job } = await api<{ job: PlatformJob }>(`/api/jobs/${encodeURIComponent(jobId)}`);
        update(jobId, (turn) => ({ ...turn, job }));
      } catch {
        // The next poll tries again.
      }
    }
  }, [activeKey, update]);
  usePolling(follow, CHAT_POLL_MS, { enabled: active.length > 0 });

  /** Sends a message: shown at once; true when it was queued. */
  const send = useCallback(
    async (message: string): Promise<boolean> => {
      const key = `local-${++localIds.current}`;
      const sentAt = new Date().toISOString();
      setTurns((current) => [...current, { key, message, sentAt }]);
      setSending(true);
      try {
        const queued = await api<QueuedChat>("/api/gateway/chat", { json: { message } });
        const now = new Date().toISOString();
        const job: PlatformJob = {
          id: queued.jobId,
          userId: null,
          agentId: queued.agentId,
          lane: "runtime_exec",
          jobType: CHAT_JOB_TYPE,
          status: "queued",
          priority: 50,
          attempts: 0,
          maxAttempts: 3,
          runAt: now,
          lockedAt: null,
          startedAt: null,
          completedAt: null,
          error: null,
          result: null,
          progress: null,
          payload: { message },
          createdAt: now,
          updatedAt: now,
        };
        // The key becomes the job's id, so polling and the history agree on it.
        update(key, (turn) => ({ ...turn, key: queued.jobId, job, agentName: queued.agentName }));
        return true;
      } catch (err) {
        const status = err instanceof ApiError ? err.status : 0;
        const retryAfter = err instanceof ApiError ? err.retryAfterSeconds : undefined;
        update(key, (turn) => ({
          ...turn,
          sendError: {
            message: messageOf(err),
            status,
            retryAt:
              retryAfter === undefined ? undefined : new Date(Date.now() + retryAfter * 1000).toISOString(),
          },
        }));
        return false;
      } finally {
        setSending(false);
      }
    },
    [update],
  );

  return {
    turns,
    historyLoaded,
    historyError,
    hasOlder: olderCursor !== null,
    loadOlder: () => (olderCursor ? loadHistory(olderCursor) : Promise.resolve()),
    send,
    sending,
  };
}
