"use client";

import { useCallback, useRef, useState } from "react";
import { ApiError, api, type LiveStatus, messageOf, useLiveSocket, usePolling } from "@/components/data";
import {
  type PermissionDecision,
  type PermissionRequest,
  permissionSocketFrame,
} from "@/lib/permissions/inputs";

/** While the socket is down, the REST list is read this often. */
export const FALLBACK_POLL_MS = 3_000;
/**
 * While the socket is open the list is still re-read this often: the backend expires a request it was not
 * told about (after 330 s) without a socket frame, and such a row would otherwise stay on the page.
 */
export const OPEN_REFRESH_MS = 60_000;

interface PendingPage {
  pending: PermissionRequest[];
  nextCursor: string | null;
}

interface Ticket {
  token: string;
  userId: string;
}

/** A request the socket announced before the REST list has its full record. */
export type PendingRow = PermissionRequest & { announcedOnly?: boolean };

/**
 * The signed-in user's pending permission requests, live: the REST list (`GET /api/permissions`), kept
 * current by the permission WebSocket on the web's origin (`/ws/permissions`, a fresh ticket for every
 * connection). A `permission_request` adds its row at once (the list is then re-read for the tool's full
 * input); a `decision_ack` — from this page, another tab or the REST API — removes it. While the socket is
 * not open the list is polled instead; while it is open, it is still re-read every minute (expired requests
 * go). A decision answered 404 (the request expired or was decided elsewhere) removes the row and says so.
 */
export function usePendingPermissions() {
  const [rows, setRows] = useState<PendingRow[] | undefined>(undefined);
  const [more, setMore] = useState(false);
  const [error, setError] = useState("");
  const [notice, setNotice] = useState("");
  const decided = useRef(new Set<string>());

  const reload = useCallback(async () => {
    try {
      const page = await api<PendingPage>("/api/permissions?limit=100");
      setRows(page.pending.filter((row) => !decided.current.has(row.id)));
      setMore(page.nextCursor !== null);
      setError("");
    } catch (err) {
      setError(messageOf(err));
    }
  }, []);

  const remove = useCallback((requestId: string) => {
    decided.current.add(requestId);
    setRows((current) => current?.filter((row) => row.id !== requestId));
  }, []);

  const onMessage = useCallback(
    (data: unknown) => {
      const frame = permissionSocketFrame.safeParse(data);
      if (!frame.success) return;
      const message = frame.data;
      if (message.type === "connected") void reload();
      if (message.type === "decision_ack") remove(message.requestId);
      if (message.type === "permission_request") {
        setRows((current) => {
          if (current?.some((row) => row.id === message.id)) return current;
          const announced: PendingRow = {
            id: message.id,
            agentId: message.agentId,
            userId: "",
            toolName: "",
            toolInput: { command: message.command },
            tier: message.tier === "destructive" || message.tier === "safe" ? message.tier : "dangerous",
            reason: message.reason,
            timestamp: Date.now(),
            status: "pending",
            announcedOnly: true,
          };
          return [...(current ?? []), announced];
        });
        void reload();
      }
    },
    [reload, remove],
  );

  const socketUrl = useCallback(async () => {
    const ticket = await api<Ticket>("/api/permissions/ws-ticket");
    const query = new URLSearchParams({ userId: ticket.userId, token: ticket.token });
    return `/ws/permissions?${query}`;
  }, []);

  const status: LiveStatus = useLiveSocket(socketUrl, { onMessage });
  // The REST list stands in while the socket is connecting, reconnecting or closed; while it is open, a
  // slower re-read drops the requests the backend expired.
  usePolling(reload, status === "open" ? OPEN_REFRESH_MS : FALLBACK_POLL_MS);

  /**
   * Records a decision through the REST API; the row goes at once (the socket's ack confirms it). A 404 means
   * the request is no longer pending: its row goes too, with a notice instead of an error.
   */
  const decide = useCallback(
    async (requestId: string, decision: PermissionDecision) => {
      setNotice("");
      try {
        await api("/api/permissions", { json: { requestId, decision } });
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
        setNotice("That request had expired or was decided elsewhere; it is no longer waiting.");
      }
      remove(requestId);
    },
    [remove],
  );

  return { rows, more, error, notice, status, reload, decide };
}
