import { requestLogger } from "@svc/common";
import express, { type ErrorRequestHandler, type Express } from "express";
import type { Logger } from "pino";
import { SUMMARIZER_SERVICE, SUMMARIZER_VERSION } from "./version";

export interface SummarizerDeps {
  logger: Logger;
}

/** Builds the summarizer app; `server.ts` starts it. Error bodies are `{error}` as the spec gives. */
export function createSummarizerApp({ logger }: SummarizerDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLogger(logger));
  app.get("/health", (_req, res) => {
    res.json({ status: "ok", service: SUMMARIZER_SERVICE, version: SUMMARIZER_VERSION });
  });
  app.use((req, res) => {
    res.status(404).json({ error: `no route for ${req.method} ${req.path}` });
  });
  const onError: ErrorRequestHandler = (err, _req, res, _next) => {
    logger.error({ err }, "unhandled error");
    res.status(500).json({ error: "internal server error" });
  };
  app.use(onError);
  return app;
}
