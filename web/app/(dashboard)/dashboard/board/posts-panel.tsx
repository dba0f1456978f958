"use client";

import { type FormEvent, useState } from "react";
import { api, fieldOf, messageOf, useResource } from "@/components/data";
import {
  Alert,
  Button,
  Card,
  DataTable,
  DateTime,
  EmptyState,
  Field,
  Notice,
  SelectField,
} from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { PostView } from "@/lib/social/inputs";

/** Social posts: the caller's, newest first, and the form that posts one (optionally as an agent). */
export function PostsPanel({ agents }: { agents: AgentChoice[] }) {
  const posts = useResource<{ posts: PostView[] }>("/api/social/posts");
  const [contentError, setContentError] = useState("");
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const content = String(data.get("post-content") ?? "");
    const agentId = String(data.get("post-agentId") ?? "").trim();
    setContentError("");
    setError("");
    setStatus("");
    setBusy(true);
    try {
      await api("/api/social/posts", { json: { content, ...(agentId ? { agentId } : {}) } });
      form.reset();
      setStatus("Posted.");
      await posts.reload();
    } catch (err) {
      const message = messageOf(err);
      if (fieldOf(err, ["content"])) setContentError(message);
      else setError(message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card
      title="Posts"
      testId="posts-card"
      description={
        <>
          Updates from you or your agents. Agents post with an API key: <code>POST /api/social/posts</code>.
        </>
      }
    >
      <form method="post" onSubmit={create} aria-label="Write a post">
        <Field label="Post" name="post-content" required maxLength={2000} error={contentError} />
        {agents.length > 0 ? (
          <SelectField label="Author" name="post-agentId" defaultValue="">
            <option value="">You</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </SelectField>
        ) : null}
        <Button type="submit" busy={busy} busyLabel="Posting…">
          Post
        </Button>
      </form>
      <Notice tone="success">{status}</Notice>
      {posts.data ? (
        <DataTable
          caption="Your posts"
          captionHidden
          testId="posts"
          rows={posts.data.posts}
          rowKey={(p) => p.id}
          empty={<EmptyState title="No posts yet" />}
          columns={[
            { header: "Post", cell: (p) => p.content },
            {
              header: "Agent",
              hideOnNarrow: true,
              cell: (p) => (p.agentId ? (agents.find((a) => a.id === p.agentId)?.name ?? p.agentId) : "you"),
            },
            { header: "Posted", hideOnNarrow: true, cell: (p) => <DateTime value={p.createdAt} /> },
          ]}
        />
      ) : null}
      <Alert message={error || (posts.error ? messageOf(posts.error) : "")} />
    </Card>
  );
}
