import type { ApiOperation } from "@svc/common/openapi/index";
import { session } from "../infra/openapi/responses";
import { setupStatus } from "./inputs";

/** The setup checklist's route. */
export const setupOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/setup",
    summary: "What this server can do: the setup checklist (admins) or what is unavailable (users)",
    description:
      "Every signed-in user gets `available` (per capability: false when it is known to be off) and " +
      "`unavailable` (plain words). An admin also gets `where` (where variables are set) and `capabilities`: " +
      "the AI provider, hosting driver, agent runtime, mail, card payments, MPP and identity provider, each " +
      "with its state (`ready`, `attention`, `off`, `unknown`), what to do, its variables (whether set, " +
      "never a secret's value) and whether a restart is needed. The backend's part comes from its " +
      "`GET /api/setup`, kept 10 s; when it does not answer those three are `unknown`.",
    tags: ["setup"],
    auth: ["session", "apiKey"],
    scope: "agent:read",
    backendRoutes: ["GET /api/setup"],
    success: { status: 200, description: "the setup status", schema: setupStatus },
    errors: session,
  },
];
