import type { ApiOperation } from "@svc/common/openapi/index";
import { session } from "../infra/openapi/responses";
import { characterRunBody, personaRunResult, personaSummary } from "./inputs";

const errors = {
  ...session,
  404: "no agent deployed (`status: no_agent`)",
  502: "the agent did not answer in time (10 s read, 15 s run), or answered an error (its message carried)",
} as const;

/** The persona area's routes. */
export const personaOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/runtime/character-qa",
    summary: "The agent's persona evaluation: latest scores, drift, history (proxied, 10 s)",
    tags: ["persona"],
    auth: ["session", "apiKey"],
    scope: "persona:read",
    success: {
      status: 200,
      description: "`{scores, overallScore, driftDetected, history}`",
      schema: personaSummary,
    },
    errors,
  },
  {
    method: "post",
    path: "/api/runtime/character-qa",
    summary: "Run a persona evaluation on the agent (proxied, 15 s)",
    tags: ["persona"],
    auth: ["session", "apiKey"],
    scope: "persona:write",
    body: characterRunBody,
    success: { status: 200, description: "the new `run` and the summary after it", schema: personaRunResult },
    errors: { ...errors, 400: "a body that is not JSON, or a bad field", 403: "a request from another site" },
  },
];
