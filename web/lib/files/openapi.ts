import type { ApiOperation } from "@svc/common/openapi/index";
import { crossSite, session } from "../infra/openapi/responses";
import {
  deleteFileBody,
  deleteFileResponse,
  fileQuotaResponse,
  filesQuery,
  listFilesResponse,
  uploadFileForm,
  uploadFileResponse,
} from "./inputs";

/** The files area's routes. */
export const filesOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/files",
    summary: "List the caller's files (`?agentId=` one agent's), or download one with `?download=<file_id>`",
    description:
      "With `download`: the file's bytes, streamed, with `Content-Type` (fallback `application/octet-stream`), " +
      "`Content-Disposition: attachment; filename=<encoded>` and `Content-Length`; only the uploader may download.",
    tags: ["files"],
    auth: ["session", "apiKey"],
    scope: "files:read",
    query: filesQuery,
    success: {
      status: 200,
      description: "`{files, totalSize, count}`, newest first",
      schema: listFilesResponse,
    },
    errors: {
      ...session,
      400: "bad query",
      403: "the file's stored path lies outside the upload directory",
      404: "no such file of the caller (download), or `agentId` is not one of the caller's agents",
    },
  },
  {
    method: "post",
    path: "/api/files",
    summary: "Upload a file to one of the caller's agents (streamed; FILE_MAX_BYTES and the plan's quota)",
    tags: ["files"],
    auth: ["session", "apiKey"],
    scope: "files:write",
    body: uploadFileForm,
    bodyType: "multipart/form-data",
    success: {
      status: 201,
      description: "`{success: true, file: {id, name, size, type, url, uploaded}}`",
      schema: uploadFileResponse,
    },
    errors: {
      ...session,
      400: "not multipart, no file, no agentId, an unknown field or a second file",
      ...crossSite,
      404: "the agent is not one of the caller's",
      413: "over FILE_MAX_BYTES (`file_too_large`) or the storage quota (`storage_limit_exceeded`); nothing is kept",
    },
  },
  {
    method: "delete",
    path: "/api/files",
    summary: "Delete one of the caller's files and its stored bytes",
    tags: ["files"],
    auth: ["session", "apiKey"],
    scope: "files:write",
    body: deleteFileBody,
    success: { status: 200, description: "`{success: true, fileId}`", schema: deleteFileResponse },
    errors: {
      ...session,
      400: "fileId missing",
      403: "another site's request, or a stored path outside the upload directory",
      404: "no such file of the caller",
    },
  },
  {
    method: "get",
    path: "/api/files/quota",
    summary: "The caller's storage quota (by plan), the bytes their files use, and the largest upload",
    tags: ["files"],
    auth: ["session", "apiKey"],
    scope: "files:read",
    success: {
      status: 200,
      description: "`{plan, quotaBytes, usedBytes, maxFileBytes}`",
      schema: fileQuotaResponse,
    },
    errors: session,
  },
];
