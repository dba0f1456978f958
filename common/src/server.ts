import type { Server } from "node:http";
import type { Logger } from "pino";
import { ConfigError } from "./errors";

/** Listens, turning a taken port into a one-line error instead of a stack trace. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === "EADDRINUSE") reject(new Error(`port ${port} on ${host} is already in use`));
      else if (err.code === "EACCES") reject(new Error(`no permission to listen on port ${port}`));
      else reject(err);
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** Prints a start-up failure as one line naming what is wrong, and exits non-zero. */
export function exitOnStartupError(service: string, err: unknown): never {
  const message = err instanceof ConfigError || err instanceof Error ? err.message : String(err);
  process.stderr.write(`${service}: ${message}\n`);
  process.exit(1);
}

/** Closes the server and runs `cleanup` on SIGTERM or SIGINT, then exits 0. */
export function stopOnSignals(
  server: Server,
  logger: Logger,
  cleanup: () => Promise<void> = async () => {},
): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    server.close();
    server.closeIdleConnections();
    const force = setTimeout(() => {
      server.closeAllConnections();
    }, 5_000);
    force.unref();
    cleanup()
      .catch((err: unknown) => logger.error({ err }, "cleanup failed"))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
