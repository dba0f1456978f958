import type { ApiOperation } from "@svc/common/openapi/index";
import { jobListQuery, jobPage } from "./inputs";

/** The jobs area's web routes. */
export const jobsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/jobs",
    summary: "The user's own platform jobs, newest first, one page",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "jobs:read",
    query: jobListQuery,
    backendRoutes: ["GET /api/platform-jobs"],
    success: {
      status: 200,
      description: "`{jobs, nextCursor}`; `nextCursor` null on the last page",
      schema: jobPage,
    },
    errors: {
      401: "not signed in",
      400: "bad limit, cursor, type or status",
      502: "the backend could not be reached",
    },
  },
];
