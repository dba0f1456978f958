import { type ApiOperation, metricsOperation, openApiDocumentOperation } from "@svc/common/openapi/index";
import { z } from "zod";

/** This document, its viewer (./viewer.ts) and the metrics (../metrics). */
export const metaOperations: readonly ApiOperation[] = [
  openApiDocumentOperation("/api/openapi.json"),
  metricsOperation,
  {
    method: "get",
    path: "/docs",
    summary: "This document, rendered by Swagger UI (HTML)",
    tags: ["meta"],
    auth: ["none"],
    success: { status: 200, description: "the viewer page", schema: z.string(), contentType: "text/html" },
  },
  {
    method: "get",
    path: "/docs/assets/{file}",
    summary: "The viewer's own scripts and styles (from swagger-ui-dist)",
    tags: ["meta"],
    auth: ["none"],
    success: {
      status: 200,
      description: "the file",
      schema: z.string(),
      contentType: "application/javascript",
    },
    errors: { 404: "not one of the viewer's files" },
  },
];
