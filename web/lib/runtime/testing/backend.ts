/**
 * Test helpers for the runtime routes: the REAL backend app in-process on a loopback port (as
 * web/lib/chat/e2e.test.ts runs it), seen through a recording relay so tests can compare what the web
 * answered with what the backend answered, and see exactly what the web sent.
 */
import { createLogger } from "@svc/common";
import { type FakeUpstream, startFakeUpstream } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { loadBackendConfig } from "../../../../backend/src/config";
import { serveApp, testApp } from "../../../../backend/src/testing";

/** One exchange the relay carried: the web's request and the backend's answer. */
export interface RelayedExchange {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
  answer: string;
}

export interface TestBackend {
  /** The relay's URL: what the web's BACKEND_URL points at. */
  url: string;
  /** The backend's own URL (tests call it directly to compare). */
  directUrl: string;
  exchanges: RelayedExchange[];
  close(): Promise<void>;
}

const HOP_HEADERS = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

/** Starts the backend app (its HTTP routes only; no job worker, so enqueued jobs stay `queued`). */
export async function startTestBackend(env: Record<string, string>): Promise<TestBackend> {
  const config = loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: "silent", ...env });
  const logger = createLogger("runtime-test-backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, { applicationName: "runtime-test-backend", max: 5 });
  // No hosting platform: operations that need one answer the backend's 503 (`not configured`).
  const server = await serveApp(testApp({ config, database, logger }));
  const directUrl = server.url;

  const relay = await startRecordingRelay(directUrl);

  return {
    url: relay.url,
    directUrl,
    exchanges: relay.exchanges,
    async close() {
      await relay.close();
      await server.close();
      await database.close();
    },
  };
}

export interface RecordingRelay {
  url: string;
  exchanges: RelayedExchange[];
  close(): Promise<void>;
}

/** A loopback relay to `targetUrl` that records every exchange it carries (the web's request, the answer). */
export async function startRecordingRelay(targetUrl: string): Promise<RecordingRelay> {
  const exchanges: RelayedExchange[] = [];
  const relay: FakeUpstream = await startFakeUpstream(async (req, res, body) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !HOP_HEADERS.has(name)) headers.set(name, value);
    }
    const method = req.method ?? "GET";
    const answer = await fetch(`${targetUrl}${req.url}`, {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(body),
    });
    const text = await answer.text();
    exchanges.push({
      method,
      path: req.url ?? "/",
      headers: req.headers,
      body: body.toString("utf8"),
      status: answer.status,
      answer: text,
    });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "text/plain" });
    res.end(text);
  });
  return { url: relay.url, exchanges, close: () => relay.close() };
}
