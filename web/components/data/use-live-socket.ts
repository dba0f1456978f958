"use client";

import { useEffect, useRef, useState } from "react";

/** What the page can show about a live connection. */
export type LiveStatus = "connecting" | "open" | "reconnecting" | "closed";

export interface LiveSocketOptions {
  onMessage: (data: unknown, socket: WebSocket) => void;
  onStatus?: (status: LiveStatus) => void;
  /** Off: no socket (for example until the page knows it needs one). Default on. */
  enabled?: boolean;
  /** First reconnect delay; doubled after each failure up to `maxDelayMs`. */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * A WebSocket that reconnects with exponential backoff (with jitter) until the component unmounts.
 * `url` is called for every connection attempt (a fresh ticket each time) and may be async; a throw counts
 * as a failed attempt. Text frames are parsed as JSON when they are JSON. Returns the status to show.
 */
export function useLiveSocket(
  url: () => string | Promise<string>,
  { onMessage, onStatus, enabled = true, initialDelayMs = 500, maxDelayMs = 15_000 }: LiveSocketOptions,
): LiveStatus {
  const [status, setStatus] = useState<LiveStatus>(enabled ? "connecting" : "closed");
  const handlers = useRef({ url, onMessage, onStatus });
  handlers.current = { url, onMessage, onStatus };

  useEffect(() => {
    if (!enabled) {
      setStatus("closed");
      return;
    }
    let stopped = false;
    let socket: WebSocket | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const report = (next: LiveStatus) => {
      setStatus(next);
      handlers.current.onStatus?.(next);
    };
    const retry = () => {
      if (stopped) return;
      report("reconnecting");
      const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** failures);
      failures += 1;
      timer = setTimeout(connect, delay / 2 + Math.random() * (delay / 2));
    };
    async function connect() {
      let target: string;
      try {
        target = await handlers.current.url();
      } catch {
        retry();
        return;
      }
      if (stopped) return;
      const ws = new WebSocket(new URL(target, window.location.href).toString().replace(/^http/, "ws"));
      socket = ws;
      ws.onopen = () => {
        failures = 0;
        report("open");
      };
      ws.onmessage = (event) => {
        let data: unknown = event.data;
        if (typeof data === "string") {
          try {
            data = JSON.parse(data);
          } catch {
            // not JSON: handed over as text
          }
        }
        handlers.current.onMessage(data, ws);
      };
      ws.onclose = () => {
        if (socket === ws) socket = undefined;
        retry();
      };
    }
    report("connecting");
    void connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
      setStatus("closed");
    };
  }, [enabled, initialDelayMs, maxDelayMs]);

  return status;
}
