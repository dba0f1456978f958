"use client";

import { api, useResource } from "@/components/data";
import { ActionForm, useAction } from "@/components/forms";
import { Card, DataTable, DateTime, EmptyState, Field, SelectField } from "@/components/ui";
import type { AgentChoice } from "@/lib/agents/choices";
import type { PostView } from "@/lib/social/inputs";

/** Social posts: the caller's, newest first, and the form that posts one (optionally as an agent). */
export function PostsPanel({ agents }: { agents: AgentChoice[] }) {
  const posts = useResource<{ posts: PostView[] }>("/api/social/posts");
  const action = useAction({ fields: ["content"] });

  async function create(data: FormData, form: HTMLFormElement) {
    const content = String(data.get("post-content") ?? "");
    const agentId = String(data.get("post-agentId") ?? "").trim();
    await api("/api/social/posts", { json: { content, ...(agentId ? { agentId } : {}) } });
    form.reset();
    await posts.reload();
    return "Posted.";
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
      <ActionForm
        action={action}
        label="Write a post"
        onSubmit={create}
        submit="Post"
        busyLabel="Posting…"
        loadError={posts.error}
      >
        <Field
          label="Post"
          name="post-content"
          required
          maxLength={2000}
          error={action.fieldErrors.content}
        />
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
      </ActionForm>
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
    </Card>
  );
}
