import { type ApiOperation, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
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
      ...session,
      400: "bad limit, cursor, type or status",
      502: "the backend could not be reached",
    },
  },
  {
    method: "get",
    path: "/api/jobs/{jobId}",
    summary: "One of the user's jobs, as the backend shows it",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "jobs:read",
    success: { status: 200, description: "`{job}`", schema: z.object({ job: jsonObject }) },
    errors: { ...session, 404: "no such job of this user" },
  },
];
