import { httpUrl } from "@svc/common";
import { z } from "zod";

/** An operator's skill in `MCP_SKILLS`: its id, the MCP endpoint, and headers sent with every request. */
export const operatorSkill = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "id must be 1-64 characters of a-z, 0-9, _ and -"),
  url: httpUrl(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type OperatorSkill = z.infer<typeof operatorSkill>;

/** `MCP_SKILLS`: a JSON list of operator skills (ids unique). */
const operatorSkills = () =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be a JSON list of {id, url, headers?}" });
        return z.NEVER;
      }
    })
    .pipe(
      z
        .array(operatorSkill, "must be a JSON list of {id, url, headers?}")
        .refine((list) => new Set(list.map((s) => s.id)).size === list.length, "skill ids must be unique"),
    )
    .default([]);

/** The skills area's variables (spread into the web's envSchema). */
export const skillsEnv = {
  /** Exa's MCP server (skill `websearch`). */
  MCP_WEBSEARCH_URL: httpUrl().default("https://mcp.exa.ai/mcp"),
  /** Context7's MCP server (skill `context7`). */
  MCP_CONTEXT7_URL: httpUrl().default("https://mcp.context7.com/mcp"),
  /** grep.app's MCP server (skill `grep_app`). */
  MCP_GREP_APP_URL: httpUrl().default("https://mcp.grep.app"),
  /** Optional Exa API key (sent as `exaApiKey` in the URL's query, as Exa documents). */
  EXA_API_KEY: z.string().optional(),
  /** Optional Context7 API key (sent as the `CONTEXT7_API_KEY` header). */
  CONTEXT7_API_KEY: z.string().optional(),
  /** More skills: JSON list of `{id, url, headers?}`; users can only pick among configured skills. */
  MCP_SKILLS: operatorSkills(),
};
