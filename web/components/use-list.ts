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
  /** `DELETE <path>/<id>`, then `onDeleted` and a reload; a failure becomes `error`. */
  const remove = useCallback(
    async (id: string, onDeleted?: () => void) => {
      setError("");
      try {
        await api(`${path}/${encodeURIComponent(id)}`, { method: "DELETE" });
        onDeleted?.();
        await reload();
      } catch (err) {
        setError(messageOf(err));
      }
    },
    [path, reload],
  );
  return { items, reload, remove, error, setError };
}
