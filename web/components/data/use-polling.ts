"use client";

import { useEffect, useRef } from "react";

/**
 * Runs `fn` now and every `ms` while `enabled` and the page is visible; again at once when the page
 * becomes visible. The latest `fn` is called (no need to memoise it).
 */
export function usePolling(fn: () => unknown, ms: number, { enabled = true }: { enabled?: boolean } = {}) {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    if (!enabled) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer || document.visibilityState !== "visible") return;
      void latest.current();
      timer = setInterval(() => void latest.current(), ms);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => (document.visibilityState === "visible" ? start() : stop());
    start();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [ms, enabled]);
}
