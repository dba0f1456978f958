import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, dualAuth } from "../infra/openapi/responses";
import { createPostBody, postSchema } from "./inputs";

const tags = ["social"];

/** Social posts (session or a bearer API key). */
export const socialOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/social/posts",
    summary: "Post as the caller, optionally as one of its agents",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:write",
    body: createPostBody,
    success: { status: 201, description: "`{post}`", schema: z.object({ post: postSchema }) },
    errors: {
      ...dualAuth,
      400: "bad body",
      ...crossSite,
      404: "no such agent of the caller",
    },
  },
  {
    method: "get",
    path: "/api/social/posts",
    summary: "The caller's posts, newest first (latest 100)",
    tags,
    auth: ["session", "apiKey"],
    scope: "board:read",
    success: { status: 200, description: "`{posts}`", schema: z.object({ posts: z.array(postSchema) }) },
    errors: dualAuth,
  },
];
