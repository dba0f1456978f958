"use client";

import { api, messageOf, useResource } from "@/components/data";
import { ActionStatus, useAction } from "@/components/forms";
import { Alert, Button, Card, EmptyState, StatusBadge } from "@/components/ui";
import type { SkillSummary } from "@/lib/skills/inputs";
import { ToolCallForm } from "./tool-call-form";

/** Every configured skill: activate or deactivate it; an active one lists its tools, each callable. */
export function SkillsPanel() {
  const skills = useResource<{ skills: SkillSummary[] }>("/api/mcp");
  const action = useAction();

  const toggle = (skill: SkillSummary) =>
    action.run(async () => {
      const path = `/api/mcp/${encodeURIComponent(skill.id)}`;
      if (skill.active) {
        const answer = await api<{ message: string }>(path, { method: "DELETE" });
        await skills.reload();
        return answer.message;
      }
      const answer = await api<{ mcp: { name: string; version: string; tools: unknown[] } }>(path, {
        method: "POST",
      });
      await skills.reload();
      return `${skill.label} is active: ${answer.mcp.name} ${answer.mcp.version}, ${answer.mcp.tools.length} tools.`;
    }, skill.id);

  if (skills.loading) return <p className="muted">Loading…</p>;
  if (skills.error) return <Alert message={messageOf(skills.error)} />;
  const list = skills.data?.skills ?? [];
  return (
    <>
      <ActionStatus action={action} tone="info" />
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
                busy={action.running === skill.id}
                busyLabel={skill.active ? "Deactivating…" : "Activating…"}
                disabled={action.busy && action.running !== skill.id}
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
