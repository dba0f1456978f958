/**
 * The skills a user can activate: the three built-ins (their URLs and API keys from configuration) and the
 * operator's `MCP_SKILLS`. Users name a skill by id; they can never point the platform at a URL.
 */
import type { WebConfig } from "../infra/config";

export const BUILT_IN_SKILL_IDS = ["websearch", "context7", "grep_app"] as const;

export interface SkillDefinition {
  id: string;
  /** A short human name for the dashboard. */
  label: string;
  builtIn: boolean;
  /** The MCP endpoint (Streamable HTTP). Carries an API key for Exa: never shown or logged. */
  url: string;
  /** Sent with every request to the server (API keys included): never shown or logged. */
  headers: Record<string, string>;
}

type SkillConfig = Pick<
  WebConfig,
  | "MCP_WEBSEARCH_URL"
  | "MCP_CONTEXT7_URL"
  | "MCP_GREP_APP_URL"
  | "EXA_API_KEY"
  | "CONTEXT7_API_KEY"
  | "MCP_SKILLS"
>;

/** `url` with `name=value` added to its query. */
function withQuery(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

/** Every configured skill, built-ins first; an operator skill with a built-in's id replaces it. */
export function skillCatalog(config: SkillConfig): SkillDefinition[] {
  const builtIns: SkillDefinition[] = [
    {
      id: "websearch",
      label: "Web search (Exa)",
      builtIn: true,
      url: config.EXA_API_KEY
        ? withQuery(config.MCP_WEBSEARCH_URL, "exaApiKey", config.EXA_API_KEY)
        : config.MCP_WEBSEARCH_URL,
      headers: {},
    },
    {
      id: "context7",
      label: "Library docs (Context7)",
      builtIn: true,
      url: config.MCP_CONTEXT7_URL,
      headers: config.CONTEXT7_API_KEY ? { CONTEXT7_API_KEY: config.CONTEXT7_API_KEY } : {},
    },
    {
      id: "grep_app",
      label: "Code search (grep.app)",
      builtIn: true,
      url: config.MCP_GREP_APP_URL,
      headers: {},
    },
  ];
  const operator = config.MCP_SKILLS.map((s) => ({
    id: s.id,
    label: s.id,
    builtIn: false,
    url: s.url,
    headers: s.headers ?? {},
  }));
  const operatorIds = new Set(operator.map((s) => s.id));
  return [...builtIns.filter((s) => !operatorIds.has(s.id)), ...operator];
}

/** The skill `id`, or undefined when no such skill is configured. */
export function findSkill(config: SkillConfig, id: string): SkillDefinition | undefined {
  return skillCatalog(config).find((s) => s.id === id);
}
