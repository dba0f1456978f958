import { createServer } from "node:http";
import { createLogger, exitOnStartupError, listen, stopOnSignals } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { createApp } from "./app";
import { loadBackendConfig } from "./config";

try {
  const config = loadBackendConfig();
  const logger = createLogger("backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, { applicationName: "svc-backend" });
  const server = createServer(createApp({ config, database, logger }));
  await listen(server, config.BACKEND_PORT, config.HOST);
  logger.info({ port: config.BACKEND_PORT, host: config.HOST }, "backend listening");
  stopOnSignals(server, logger, () => database.close());
} catch (err) {
  exitOnStartupError("backend", err);
}
