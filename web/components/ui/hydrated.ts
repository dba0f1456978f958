"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => undefined;

/**
 * False in the server's HTML and while React hydrates it, true once the page's script runs (and at once
 * in anything rendered later). A control whose work is done by script waits for it: before, pressing it
 * would do nothing.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
