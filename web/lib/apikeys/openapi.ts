import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, ok, session } from "../infra/openapi/responses";
import { createApiKeyBody } from "./inputs";

const apiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: "ApiKey" });

/** The user's API keys. */
export const apiKeysOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/keys",
    summary: "The user's active API keys, newest first",
    tags: ["api keys"],
    auth: ["session"],
    success: { status: 200, description: "`{keys}`", schema: z.object({ keys: z.array(apiKey) }) },
    errors: session,
  },
  {
    method: "post",
    path: "/api/keys",
    summary: "Create an API key (the raw key is shown this once)",
    tags: ["api keys"],
    auth: ["session"],
    body: createApiKeyBody,
    success: {
      status: 201,
      description: "the key with its raw `key`",
      schema: apiKey.omit({ lastUsedAt: true }).extend({ key: z.string() }),
    },
    errors: { ...session, ...crossSite, 400: "bad body", 429: "the limit of active keys is reached" },
  },
  {
    method: "get",
    path: "/api/keys/{id}",
    summary: "One of the user's API keys",
    tags: ["api keys"],
    auth: ["session"],
    success: { status: 200, description: "`{key}`", schema: z.object({ key: apiKey }) },
    errors: { ...session, 404: "no such key of this user" },
  },
  {
    method: "delete",
    path: "/api/keys/{id}",
    summary: "Revoke one of the user's API keys",
    tags: ["api keys"],
    auth: ["session"],
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: { ...session, ...crossSite, 404: "no such key of this user" },
  },
];
