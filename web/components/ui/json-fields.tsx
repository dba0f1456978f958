import type { ReactNode } from "react";
import { DateTime } from "./date-time";

/** Labels people read for the keys the platform's results use most; other keys are split into words. */
const LABELS: Record<string, string> = {
  agentId: "Agent",
  url: "Address",
  serviceId: "Service",
  image: "Image",
  version: "Runtime version",
  tokenGenerated: "New gateway token",
  serviceStatus: "Service status",
  probe: "Probe",
  reply: "Reply",
  message: "Message",
  model: "Model",
};

/**
 * The object's entries, the well-known keys first in LABELS' order (a stored result comes back from
 * PostgreSQL's jsonb with its keys reordered), the others after them as they come.
 */
export function orderedEntries(value: Record<string, unknown>): [string, unknown][] {
  const known = Object.keys(LABELS);
  const rank = (key: string) => (known.includes(key) ? known.indexOf(key) : known.length);
  return Object.entries(value).sort(([a], [b]) => rank(a) - rank(b));
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** `serviceStatus` → "Service status", `max_tokens` → "Max tokens". */
export function labelOf(key: string): string {
  if (LABELS[key]) return LABELS[key];
  const words = key
    .replace(/[_-]+/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .trim()
    .toLowerCase();
  return words ? words[0].toUpperCase() + words.slice(1) : key;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function Value({
  name,
  value,
  agentName,
}: {
  name: string;
  value: unknown;
  agentName?: (agentId: string) => string;
}): ReactNode {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "number") return value.toLocaleString();
  if (typeof value === "string") {
    if (name === "agentId" && agentName) return agentName(value);
    if (ISO_TIME.test(value)) return <DateTime value={value} />;
    if (/^https?:\/\//.test(value) || /Id$/.test(name) || name === "id") return <code>{value}</code>;
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return "none";
    if (value.every((item) => !isRecord(item) && !Array.isArray(item))) return value.map(String).join(", ");
    return (
      <ol>
        {value.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the items of a stored result have nothing else to key on
          <li key={index}>
            <Value name={name} value={item} agentName={agentName} />
          </li>
        ))}
      </ol>
    );
  }
  if (isRecord(value)) return <JsonFields value={value} agentName={agentName} />;
  return String(value);
}

/**
 * A JSON object (a job's result or input) as label / value pairs a person reads: keys in words, times in
 * the reader's locale, yes / no, an agent's name for `agentId`, nested objects as nested pairs.
 */
export function JsonFields({
  value,
  agentName,
  testId,
}: {
  value: Record<string, unknown>;
  /** The name of one of the user's agents by id (`useAgentNames`). */
  agentName?: (agentId: string) => string;
  testId?: string;
}) {
  const entries = orderedEntries(value);
  if (entries.length === 0) return <p className="muted">Nothing.</p>;
  return (
    <dl className="facts json-fields" data-testid={testId}>
      {entries.map(([key, item]) => (
        <div key={key}>
          <dt>{labelOf(key)}</dt>
          <dd>
            <Value name={key} value={item} agentName={agentName} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
