"use client";

import { type FormEvent, useId, useState } from "react";
import { api, messageOf } from "@/components/data";
import { Alert, Button } from "@/components/ui";
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
  const [busy, setBusy] = useState(false);
  const [paramsError, setParamsError] = useState("");
  const [error, setError] = useState("");
  const [result, setResult] = useState<ToolCallAnswer["result"] | null>(null);

  async function call(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setParamsError("");
    setError("");
    setResult(null);
    const text = String(new FormData(event.currentTarget).get("parameters") ?? "").trim();
    let parameters: unknown = {};
    if (text) {
      try {
        parameters = JSON.parse(text);
      } catch {
        setParamsError('Parameters must be valid JSON, for example {"query": "…"}.');
        return;
      }
    }
    if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) {
      setParamsError("Parameters must be a JSON object.");
      return;
    }
    setBusy(true);
    try {
      const path = `/api/mcp/${encodeURIComponent(skillId)}/call/${encodeURIComponent(tool.name)}`;
      const answer = await api<ToolCallAnswer>(path, { json: { parameters } });
      setResult(answer.result);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  const field = `${id}-parameters`;
  return (
    <form method="post" onSubmit={call} aria-label={`Call ${tool.name}`}>
      <div className="field">
        <label htmlFor={field}>Parameters of {tool.name} (JSON)</label>
        <textarea
          id={field}
          name="parameters"
          rows={4}
          defaultValue={exampleOf(tool)}
          spellCheck={false}
          aria-invalid={paramsError ? true : undefined}
          aria-describedby={paramsError ? `${field}-error` : undefined}
          style={{ fontFamily: "var(--font-mono)" }}
        />
        {paramsError ? (
          <p id={`${field}-error`} className="error" role="alert">
            {paramsError}
          </p>
        ) : null}
      </div>
      <Button type="submit" size="sm" variant="secondary" busy={busy} busyLabel="Calling…">
        Call {tool.name}
      </Button>
      <Alert message={error ? `The call failed: ${error}` : ""} />
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
    </form>
  );
}
