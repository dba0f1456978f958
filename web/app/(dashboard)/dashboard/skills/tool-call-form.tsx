"use client";

import { useId, useState } from "react";
import { api, messageOf } from "@/components/data";
import { ActionForm, FormError, useAction } from "@/components/forms";
import { TextAreaField } from "@/components/ui";
import type { SkillSummary, ToolCallAnswer } from "@/lib/skills/inputs";

type Tool = NonNullable<SkillSummary["mcp"]>["tools"][number];

/** An example of the tool's parameters: each required property with an empty value of its type. */
function exampleOf(tool: Tool): string {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [];
  const example: Record<string, unknown> = {};
  for (const name of required) {
    const type = properties[name]?.type;
    example[name] =
      type === "number" || type === "integer" ? 0 : type === "boolean" ? false : type === "array" ? [] : "";
  }
  return JSON.stringify(example, null, 2);
}

/** Calls one tool with JSON parameters and shows its result or its error. */
export function ToolCallForm({ skillId, tool }: { skillId: string; tool: Tool }) {
  const id = useId();
  const action = useAction({ message: (err) => `The call failed: ${messageOf(err)}` });
  const [result, setResult] = useState<ToolCallAnswer["result"] | null>(null);

  async function call(data: FormData) {
    setResult(null);
    const text = String(data.get("parameters") ?? "").trim();
    let parameters: unknown = {};
    if (text) {
      try {
        parameters = JSON.parse(text);
      } catch {
        throw new FormError('Parameters must be valid JSON, for example {"query": "…"}.', "parameters");
      }
    }
    if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters))
      throw new FormError("Parameters must be a JSON object.", "parameters");
    const path = `/api/mcp/${encodeURIComponent(skillId)}/call/${encodeURIComponent(tool.name)}`;
    const answer = await api<ToolCallAnswer>(path, { json: { parameters } });
    setResult(answer.result);
  }

  return (
    <>
      <ActionForm
        action={action}
        label={`Call ${tool.name}`}
        onSubmit={call}
        submit={`Call ${tool.name}`}
        busyLabel="Calling…"
        size="sm"
        variant="secondary"
      >
        <TextAreaField
          id={`${id}-parameters`}
          label={`Parameters of ${tool.name} (JSON)`}
          name="parameters"
          rows={4}
          defaultValue={exampleOf(tool)}
          spellCheck={false}
          error={action.fieldErrors.parameters}
          style={{ fontFamily: "var(--font-mono)" }}
        />
      </ActionForm>
      {result ? (
        <div role="status" data-testid={`result-${skillId}-${tool.name}`}>
          <p className="muted">Result</p>
          <pre className="code-block">
            {result
              .map((block) =>
                typeof block === "object" && block !== null && "text" in block
                  ? String((block as { text: unknown }).text)
                  : JSON.stringify(block, null, 2),
              )
              .join("\n")}
          </pre>
        </div>
      ) : null}
    </>
  );
}
