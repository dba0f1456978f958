import { createServer } from "node:http";
import { createLogger, drainUnreadBodies, exitOnStartupError, listen, stopOnSignals } from "@svc/common";
import { createSummarizerApp } from "./app";
import { loadSummarizerConfig } from "./config";

try {
  const config = loadSummarizerConfig();
  const logger = createLogger("summarizer", config.LOG_LEVEL);
  const summarizer = createSummarizerApp({ config, logger });
  // A body over the limit is thrown away, bounded, so the client reads the 413.
  const server = createServer(drainUnreadBodies(summarizer.app));
  await listen(server, config.SUMMARIZER_PORT, config.HOST);
  logger.info({ port: config.SUMMARIZER_PORT, host: config.HOST }, "summarizer listening");
  stopOnSignals(server, logger, async () => summarizer.close());
} catch (err) {
  exitOnStartupError("summarizer", err);
}
