"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { type ApiError, api } from "./api";

export interface Resource<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  /** True until the first answer (or failure) of the current path. */
  loading: boolean;
  /** Reads the path again; resolves once the new data (or error) is set. */
  reload: () => Promise<void>;
}

/** `GET path` as state: read on mount and when `path` changes; `null` reads nothing (not ready yet). */
export function useResource<T>(path: string | null): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | undefined>(undefined);
  const [loading, setLoading] = useState(path !== null);
  const current = useRef(path);
  current.current = path;

  const reload = useCallback(async () => {
    if (path === null) return;
    try {
      const next = await api<T>(path);
      if (current.current !== path) return;
      setData(next);
      setError(undefined);
    } catch (err) {
      if (current.current !== path) return;
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      if (current.current === path) setLoading(false);
    }
  }, [path]);

  useEffect(() => {
    setData(undefined);
    setError(undefined);
    setLoading(path !== null);
    void reload();
  }, [path, reload]);

  return { data, error, loading, reload };
}
