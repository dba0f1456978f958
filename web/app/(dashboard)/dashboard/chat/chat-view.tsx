"use client";

import Link from "next/link";
import { type FormEvent, type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { useResource } from "@/components/data";
import { Alert, Button, DateTime, EmptyState, Notice, PageHeader, StatusBadge } from "@/components/ui";
import { MAX_CHAT_MESSAGE_LENGTH } from "@/lib/chat/inputs";
import { progressOf, statusWord } from "../jobs/job-format";
import styles from "./chat.module.css";
import { type ChatTurn, useChat } from "./use-chat";

/** The agent's side of a turn: the reply, where its job is, or why it failed. */
function AgentAnswer({ turn }: { turn: ChatTurn }) {
  const { job, sendError } = turn;
  if (sendError) {
    return (
      <div className={`${styles.bubble} ${styles.agent} ${styles.failed}`} data-testid="chat-error">
        <p className={styles.meta}>
          <StatusBadge status="failed">not sent</StatusBadge>
        </p>
        <p className={styles.text}>{sendError.message}</p>
        {sendError.retryAt ? (
          <p className={styles.meta} data-testid="chat-retry-at">
            {/* One flex item: the sentence's words keep their own spacing around the time. */}
            <span>
              You can send again at <DateTime value={sendError.retryAt} style="time" />.
            </span>
          </p>
        ) : null}
        {sendError.status === 404 ? (
          <p>
            <Link href="/dashboard/agent">Deploy your agent →</Link>
          </p>
        ) : null}
      </div>
    );
  }
  if (!job) {
    return (
      <div className={`${styles.bubble} ${styles.agent} ${styles.pending}`} data-testid="chat-status">
        <p className={styles.meta}>Sending…</p>
      </div>
    );
  }
  if (job.status === "completed") {
    const reply = typeof job.result?.reply === "string" ? job.result.reply : JSON.stringify(job.result);
    return (
      <div className={`${styles.bubble} ${styles.agent}`}>
        <p className={styles.text} data-testid="chat-reply">
          {reply}
        </p>
        <p className={styles.meta}>
          <span>
            {turn.agentName ?? "Your agent"}
            {job.completedAt ? (
              <>
                {" · "}
                <DateTime value={job.completedAt} style="time" />
              </>
            ) : null}
          </span>
        </p>
      </div>
    );
  }
  if (job.status === "failed") {
    return (
      <div className={`${styles.bubble} ${styles.agent} ${styles.failed}`} data-testid="chat-error">
        <p className={styles.meta}>
          <StatusBadge status="failed" /> {progressOf(job)}
        </p>
        <p className={styles.text}>{job.error ?? "the message could not be answered"}</p>
        <p className={styles.meta}>
          <Link href={`/dashboard/jobs/${encodeURIComponent(job.id)}`}>Job details</Link>
        </p>
      </div>
    );
  }
  return (
    <div className={`${styles.bubble} ${styles.agent} ${styles.pending}`} data-testid="chat-status">
      <p className={styles.meta}>
        <StatusBadge status={statusWord(job)} /> {progressOf(job)}
      </p>
      {job.error ? <p className={styles.lastError}>Last attempt: {job.error}</p> : null}
    </div>
  );
}

/**
 * A conversation with the user's agent: each message is a queued chat job, followed until it ends. With
 * `unavailable` (chat is off on this server) that notice leads the page and nothing can be sent.
 */
export function ChatView({ unavailable = null }: { unavailable?: ReactNode }) {
  const off = unavailable !== null;
  const chat = useChat();
  const health = useResource<{ status: string }>("/api/runtime/health");
  const [draft, setDraft] = useState("");
  const endRef = useRef<HTMLDivElement>(null);
  const count = chat.turns.length;
  const lastKey = chat.turns.at(-1)?.key;

  // To the bottom when a message is added at the end, not when earlier messages are put before the first.
  useEffect(() => {
    if (lastKey !== undefined) endRef.current?.scrollIntoView({ block: "end" });
  }, [lastKey]);

  // Never cut: a message over the limit stays whole in the box, which says so.
  const length = [...draft].length;
  const tooLong =
    length > MAX_CHAT_MESSAGE_LENGTH
      ? `Your message has ${length} characters; a message may have at most ${MAX_CHAT_MESSAGE_LENGTH}.`
      : "";
  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    const message = draft.trim();
    if (!message || chat.sending || off || tooLong) return;
    setDraft("");
    // Nothing was queued: the text comes back to the box, to send again.
    if (!(await chat.send(message))) setDraft((current) => current || message);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  };

  return (
    <>
      <PageHeader
        title="Chat"
        description="Talk to your agent. Each message runs as a job; replies appear here."
      />
      {unavailable}
      {health.data?.status === "no_agent" ? (
        <Notice tone="warning" testId="chat-no-agent">
          You have no agent yet. <Link href="/dashboard/agent">Deploy one</Link> to start a conversation.
        </Notice>
      ) : null}
      <Alert message={chat.historyError} />
      <section className={styles.conversation} aria-label="Conversation">
        {chat.hasOlder ? (
          <div className={styles.older}>
            <Button variant="ghost" size="sm" onClick={() => void chat.loadOlder()}>
              Earlier messages
            </Button>
          </div>
        ) : null}
        {!chat.historyLoaded ? (
          <p className="muted">Loading the conversation…</p>
        ) : count === 0 ? (
          <EmptyState title="No messages yet">Ask your agent anything; its reply appears here.</EmptyState>
        ) : null}
        <div role="log" aria-live="polite" aria-label="Messages" data-testid="chat-log">
          <ol className={styles.turns}>
            {chat.turns.map((turn) => (
              <li key={turn.key} className={styles.turn} data-testid="chat-turn">
                <div className={`${styles.bubble} ${styles.user}`}>
                  <p className={styles.text} data-testid="chat-message">
                    {turn.message}
                  </p>
                  <p className={styles.meta}>
                    <span className="sr-only">You, </span>
                    <DateTime value={turn.sentAt} style="time" />
                  </p>
                </div>
                <AgentAnswer turn={turn} />
              </li>
            ))}
          </ol>
        </div>
        <div ref={endRef} />
      </section>
      <form method="post" className={styles.composer} onSubmit={(event) => void submit(event)}>
        <label htmlFor="chat-message" className="sr-only">
          Message
        </label>
        <textarea
          id="chat-message"
          name="message"
          rows={2}
          placeholder={off ? "Chat is not available on this server" : "Message your agent…"}
          aria-describedby={tooLong ? "chat-message-hint chat-message-limit" : "chat-message-hint"}
          aria-invalid={tooLong ? true : undefined}
          value={draft}
          disabled={off}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <p id="chat-message-hint" className="sr-only">
          Enter sends; Shift+Enter starts a new line.
        </p>
        {tooLong ? (
          <p id="chat-message-limit" className={`error ${styles.limit}`} role="alert">
            {tooLong}
          </p>
        ) : null}
        <Button
          type="submit"
          busy={chat.sending}
          busyLabel="Sending…"
          disabled={off || !draft.trim() || !!tooLong}
        >
          Send
        </Button>
      </form>
    </>
  );
}
