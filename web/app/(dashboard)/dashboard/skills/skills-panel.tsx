"use client";

import { useState } from "react";
import { api, messageOf, useResource } from "@/components/data";
import { Alert, Button, Card, EmptyState, Notice, StatusBadge } from "@/components/ui";
import type { SkillSummary } from "@/lib/skills/inputs";
import { ToolCallForm } from "./tool-call-form";

/** Every configured skill: activate or deactivate it; an active one lists its tools, each callable. */
export function SkillsPanel() {
  const skills = useResource<{ skills: SkillSummary[] }>("/api/mcp");
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");

  async function toggle(skill: SkillSummary) {
    setBusy(skill.id);
    setError("");
    setStatus("");
    try {
      const path = `/api/mcp/${encodeURIComponent(skill.id)}`;
      if (skill.active) {
        const answer = await api<{ message: string }>(path, { method: "DELETE" });
        setStatus(answer.message);
      } else {
        const answer = await api<{ mcp: { name: string; version: string; tools: unknown[] } }>(path, {
          method: "POST",
        });
        setStatus(
          `${skill.label} is active: ${answer.mcp.name} ${answer.mcp.version}, ${answer.mcp.tools.length} tools.`,
        );
      }
      await skills.reload();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(null);
    }
  }

  if (skills.loading) return <p className="muted">Loading…</p>;
  if (skills.error) return <Alert message={messageOf(skills.error)} />;
  const list = skills.data?.skills ?? [];
  return (
    <>
      <Notice>{status}</Notice>
      <Alert message={error} />
      {list.length === 0 ? <EmptyState title="No skills are configured on this platform" /> : null}
      {list.map((skill) => (
        <Card
          key={skill.id}
          title={skill.label}
          testId={`skill-${skill.id}`}
          description={
            <>
              <code>{skill.id}</code> {skill.builtIn ? "· built in" : "· added by the operator"}
              {skill.mcp ? ` · ${skill.mcp.name} ${skill.mcp.version}` : ""}
            </>
          }
          actions={
            <>
              <StatusBadge status={skill.active ? "active" : "off"}>
                {skill.active ? "active" : "inactive"}
              </StatusBadge>
              <Button
                variant={skill.active ? "secondary" : "primary"}
                size="sm"
                busy={busy === skill.id}
                busyLabel={skill.active ? "Deactivating…" : "Activating…"}
                disabled={busy !== null && busy !== skill.id}
                onClick={() => toggle(skill)}
                aria-label={`${skill.active ? "Deactivate" : "Activate"} ${skill.label}`}
              >
                {skill.active ? "Deactivate" : "Activate"}
              </Button>
            </>
          }
        >
          {skill.mcp ? (
            <ul
              className="stack"
              aria-label={`Tools of ${skill.label}`}
              style={{ listStyle: "none", padding: 0 }}
            >
              {skill.mcp.tools.map((tool) => (
                <li key={tool.name} data-testid={`tool-${skill.id}-${tool.name}`}>
                  <h3 className="subheading">
                    <code>{tool.name}</code>
                  </h3>
                  {tool.description ? <p className="muted">{tool.description}</p> : null}
                  <details>
                    <summary>Input schema</summary>
                    <pre className="code-block">{JSON.stringify(tool.inputSchema, null, 2)}</pre>
                  </details>
                  <ToolCallForm skillId={skill.id} tool={tool} />
                </li>
              ))}
            </ul>
          ) : null}
        </Card>
      ))}
    </>
  );
}
