import {
  createOutboundClient,
  isHttpError,
  outboundPolicy,
  requestLogger,
  unreadableRequest,
} from "@svc/common";
import { httpMetricsMiddleware, metricsHandler } from "@svc/common/metrics/index";
import express, { type ErrorRequestHandler, type Express } from "express";
import type { Logger } from "pino";
import type { SummarizerConfig } from "./config";
import { openApiHandler } from "./openapi";
import { pageRoutes } from "./pages/routes";
import { SUMMARIZER_SERVICE, SUMMARIZER_VERSION } from "./version";

export interface SummarizerDeps {
  config: SummarizerConfig;
  logger: Logger;
}

export interface SummarizerApp {
  app: Express;
  /** Closes the outbound connection pool. */
  close(): void;
}

/** Builds the summarizer app; `server.ts` starts it. Error bodies are `{error}`. */
export function createSummarizerApp({ config, logger }: SummarizerDeps): SummarizerApp {
  const client = createOutboundClient({
    name: "the page",
    policy: outboundPolicy(config.OUTBOUND_ALLOW_HOSTS),
  });
  const app = express();
  app.disable("x-powered-by");
  // Answers are fresh per call and never revalidated: no ETag hashing of every body.
  app.set("etag", false);
  app.use(requestLogger(logger));
  app.use(httpMetricsMiddleware());
  app.use(express.json({ limit: "16kb", strict: false }));

  app.get("/", (_req, res) => {
    res.json({
      service: SUMMARIZER_SERVICE,
      description:
        "Fetches a web page and returns its title, description, headings, paragraphs, links, images and meta tags.",
      endpoints: {
        "GET /": "this description",
        "GET /health": "{status, service, version}",
        "GET /openapi.json": "this service's OpenAPI 3.1 description",
        "GET /metrics": "Prometheus metrics (Bearer METRICS_TOKEN when set)",
        "POST /api/summarize":
          "{url} -> {url, title, description, headings, paragraphs, wordCount, fetchedAt}",
        "POST /api/extract": "{url} -> {url, links, images, meta, fetchedAt}",
      },
      payment: {
        network: config.SUMMARIZER_PAYMENT_NETWORK,
        currency: config.SUMMARIZER_PAYMENT_CURRENCY,
        payTo: config.SUMMARIZER_PAY_TO ?? null,
        note: config.SUMMARIZER_PAYMENT_NOTE,
      },
    });
  });
  app.get("/metrics", metricsHandler({ token: config.METRICS_TOKEN }));
  app.get("/health", (_req, res) => {
    res.json({ status: "ok", service: SUMMARIZER_SERVICE, version: SUMMARIZER_VERSION });
  });
  app.get("/openapi.json", openApiHandler);
  app.use(
    pageRoutes({
      client,
      maxBytes: config.SUMMARIZER_MAX_BYTES,
      timeoutMs: config.SUMMARIZER_FETCH_TIMEOUT_MS,
    }),
  );
  app.use((req, res) => {
    res.status(404).json({ error: `no route for ${req.method} ${req.path}` });
  });
  const onError: ErrorRequestHandler = (err, req, res, _next) => {
    if (isHttpError(err)) {
      res.status(err.status).json({ error: err.message });
      return;
    }
    const type = (err as { type?: string }).type;
    if (type === "entity.parse.failed") {
      res.status(400).json({ error: "request body is not valid JSON" });
      return;
    }
    if (type === "entity.too.large") {
      res.status(413).json({ error: "request body is larger than 16 KB" });
      return;
    }
    const unreadable = unreadableRequest(err);
    if (unreadable) {
      res.status(unreadable.status).json({ error: unreadable.message });
      return;
    }
    logger.error({ err, requestId: (req as { id?: string }).id }, "unhandled error");
    res.status(500).json({ error: "internal server error" });
  };
  app.use(onError);
  return { app, close: () => client.close() };
}
