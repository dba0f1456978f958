import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@svc/common";
import { connectDatabase, type DatabaseHandle } from "@svc/db";
import type { Express } from "express";
import { afterAll } from "vitest";
import { type BackendDeps, createApp, createBackendListener } from "../app";
import { type BackendConfig, loadBackendConfig } from "../config";
import { HMAC_SECRET, INTERNAL_API_KEY } from "./keys";

let database: DatabaseHandle | undefined;
// Registered when a test file first imports this module (its top level): the handle closes after the
// file's own afterAll hooks, which run first, so servers and workers stop before their database does.
// Outside vitest (bench/runtime.ts seeds its agent with these fixtures) the caller closes it.
if (process.env.VITEST) {
  afterAll(async () => {
    await database?.close();
    database = undefined;
  });
}

/**
 * The test file's database (common/testing/database-per-file gives each file its own, as DATABASE_URL):
 * one handle per file, opened on first use and closed after the file.
 */
export function testDatabase(): DatabaseHandle {
  database ??= connectDatabase(process.env.DATABASE_URL ?? "");
  return database;
}

/**
 * The backend's configuration on the file's database with the tests' keys; `env` adds or replaces
 * variables (`undefined` unsets one).
 */
export function testConfig(env: Record<string, string | undefined> = {}): BackendConfig {
  return loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL, INTERNAL_API_KEY, HMAC_SECRET, ...env });
}

export type TestAppOptions = Partial<BackendDeps> & {
  /** Variables over `testConfig()`'s (ignored when `config` is given). */
  env?: Record<string, string | undefined>;
};

function testDeps({ env, ...deps }: TestAppOptions): BackendDeps {
  return {
    config: testConfig(env),
    database: testDatabase(),
    logger: createLogger("backend-test", "silent"),
    ...deps,
  };
}

/** The backend's Express app (`createApp`) on the file's database, `testConfig()` and a silent logger. */
export function testApp(options: TestAppOptions = {}): Express {
  return createApp(testDeps(options));
}

/** The backend's request listener as `server.ts` serves it (the classify hook ahead of Express). */
export function testListener(options: TestAppOptions = {}): RequestListener {
  return createBackendListener(testDeps(options));
}

export interface ServedApp {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves an app or listener on a free loopback port, for tests that need a real client or a socket. */
export async function serveApp(listener: RequestListener): Promise<ServedApp> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
