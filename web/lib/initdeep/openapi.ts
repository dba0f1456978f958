import type { ApiOperation } from "@svc/common/openapi/index";
import { session } from "../infra/openapi/responses";
import { initDeepAnswer, initDeepBody, initDeepQuery, initDeepStatus } from "./inputs";

/** The init-deep area's routes. */
export const initDeepOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/init-deep",
    summary: "Which priority directories have an AGENTS.md (paths relative to the project root)",
    tags: ["init-deep"],
    auth: ["none"],
    query: initDeepQuery,
    success: { status: 200, description: "`{rootPath, status, allGenerated}`", schema: initDeepStatus },
    errors: { 400: "a path outside the project root, or not a directory inside it (one answer for both)" },
  },
  {
    method: "post",
    path: "/api/init-deep",
    summary: "Write AGENTS.md files from what the directories' source files contain (admin)",
    tags: ["init-deep"],
    auth: ["session", "apiKey"],
    scope: "context:write",
    body: initDeepBody,
    success: { status: 200, description: "`{success, dryRun, summary, results}`", schema: initDeepAnswer },
    errors: {
      400: "bad field, or a path outside the project root (through `..` or a symbolic link) or not a directory inside it",
      ...session,
      403: "not an administrator (`ADMIN_REQUIRED`), or a request from another site",
      500: "the walk failed",
    },
  },
];
