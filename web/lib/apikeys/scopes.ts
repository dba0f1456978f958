/**
 * How Settings names the scopes of API keys (@svc/common/api-scopes): each area as the dashboard's navigation
 * names it, with what its scopes reach. No server imports: the Settings page uses it in the browser.
 */
import type { ApiArea } from "@svc/common/api-scopes";

export const API_AREA_LABELS: Record<ApiArea, { label: string; reaches: string }> = {
  agent: { label: "Agent", reaches: "deploy, status, logs, start / stop / restart, heartbeat" },
  chat: { label: "Chat", reaches: "send messages to your agent" },
  approvals: { label: "Approvals", reaches: "pending tool calls, approve or reject, the live socket" },
  jobs: { label: "Jobs", reaches: "your deploys, chat messages and repairs" },
  tasks: { label: "Scheduled tasks", reaches: "list, create, change and delete tasks" },
  files: { label: "Files", reaches: "list, upload, download and delete files" },
  skills: { label: "Skills", reaches: "MCP servers: list, activate, call tools" },
  persona: { label: "Persona", reaches: "persona evaluation scores and runs" },
  board: { label: "Job board", reaches: "listings, companies, applications, claims and posts" },
  buddies: { label: "Buddies", reaches: "your virtual pets" },
  chain: { label: "Chain", reaches: "wallet lookup, your RPC endpoint, radio identity" },
  wallets: { label: "Wallets", reaches: "agent wallets and machine payments" },
  billing: { label: "Billing", reaches: "trial, card credit, gateway calls paid by card credit" },
  context: { label: "Project context", reaches: "generate AGENTS.md files (administrators)" },
};

/** A key's scopes in words: "Everything", or "Agent (read and write), Jobs (read)". */
export function describeScopes(scopes: readonly string[]): string {
  if (scopes.includes("all")) return "Everything";
  return scopes
    .map((scope) => {
      const [area, access] = scope.split(":") as [ApiArea, string];
      const label = API_AREA_LABELS[area]?.label ?? area;
      return `${label} (${access === "write" ? "read and write" : "read"})`;
    })
    .join(", ");
}
