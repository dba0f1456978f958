"use client";

import { useCallback, useEffect, useState } from "react";
import { api, messageOf } from "./api";

/** A list the dashboard loads from `GET path` (`{[key]: T[]}`), with a reload and the last error. */
export function useList<T>(path: string, key: string) {
  const [items, setItems] = useState<T[]>([]);
  const [error, setError] = useState("");
  const reload = useCallback(async () => {
    setItems((await api<Record<string, T[]>>(path))[key] ?? []);
  }, [path, key]);
  useEffect(() => {
    reload().catch((err: unknown) => setError(messageOf(err)));
  }, [reload]);
  return { items, reload, error, setError };
}
