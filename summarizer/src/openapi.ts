/**
 * The summarizer's OpenAPI 3.1 document (`GET /openapi.json`), from the schema its routes validate with.
 * A new route adds its entry here; `openapi.test.ts` fails until it does.
 */
import {
  type ApiOperation,
  buildOpenApiDocument,
  jsonObject,
  metricsOperation,
  type OpenApiDocument,
  openApiDocumentOperation,
  summarizerErrorBody,
} from "@svc/common/openapi/index";
import type { RequestHandler } from "express";
import { z } from "zod";
import { pageRequestSchema } from "./pages/schema";
import { SUMMARIZER_SERVICE, SUMMARIZER_VERSION } from "./version";

const pageErrors = {
  400: "not JSON, bad `url`, a URL that is not http(s), or a refused host",
  413: "body over 16 KB",
  500: "the page could not be fetched, answered an error status, is not HTML or is too large",
} as const;

const summary = z.object({
  url: z.string(),
  title: z.string(),
  description: z.string(),
  headings: z.array(z.string()),
  paragraphs: z.array(z.string()),
  wordCount: z.number().int(),
  fetchedAt: z.string().meta({ description: "ISO 8601" }),
});
const extract = z.object({
  url: z.string(),
  links: z.array(z.object({ href: z.string(), text: z.string() })),
  images: z.array(z.object({ src: z.string(), alt: z.string() })),
  meta: z.record(z.string(), z.string()),
  fetchedAt: z.string().meta({ description: "ISO 8601" }),
});

export const summarizerOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/",
    summary: "What this service does and its endpoints",
    auth: ["none"],
    success: { status: 200, description: "the service description", schema: jsonObject },
  },
  {
    method: "get",
    path: "/health",
    summary: "Liveness",
    auth: ["none"],
    success: {
      status: 200,
      description: "`{status, service, version}`",
      schema: z.object({ status: z.literal("ok"), service: z.string(), version: z.string() }),
    },
  },
  openApiDocumentOperation("/openapi.json"),
  metricsOperation,
  {
    method: "post",
    path: "/api/summarize",
    summary: "Fetch a page: title, description, headings, paragraphs, word count",
    auth: ["none"],
    body: pageRequestSchema,
    success: {
      status: 200,
      description: "the summary (`Server-Timing` gives fetch and extract ms)",
      schema: summary,
    },
    errors: pageErrors,
  },
  {
    method: "post",
    path: "/api/extract",
    summary: "Fetch a page: links, images, meta tags",
    auth: ["none"],
    body: pageRequestSchema,
    success: { status: 200, description: "the extract", schema: extract },
    errors: pageErrors,
  },
];

let built: OpenApiDocument | undefined;
export function summarizerOpenApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument({
    title: SUMMARIZER_SERVICE,
    version: SUMMARIZER_VERSION,
    description:
      "Fetches a web page and returns its summary or its links, images and meta tags. Errors: `{error}`.",
    errorBody: summarizerErrorBody,
    operations: summarizerOperations,
  });
  return built;
}

/** `GET /openapi.json`. */
export const openApiHandler: RequestHandler = (_req, res) => {
  res.json(summarizerOpenApiDocument());
};
