/**
 * Normalized labels of failed outbound calls (`timeout (8s)`, `dns error`, `connection
 * refused`, `connection reset`, `socket error`, `unreachable`), shared by the dashboard health probes and
 * the runtime gateway client.
 */
import { CLOSED_WITHOUT_ANSWER, OutboundError } from "@svc/common";

export type NetworkErrorLabel =
  | `timeout (${string}s)`
  | "dns error"
  | "connection refused"
  | "connection reset"
  | "socket error"
  | "unreachable";

const CODE_LABELS: Record<string, Exclude<NetworkErrorLabel, `timeout (${string}s)`> | "timeout"> = {
  ENOTFOUND: "dns error",
  EAI_AGAIN: "dns error",
  EAI_FAIL: "dns error",
  EAI_NONAME: "dns error",
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EPIPE: "socket error",
  ECONNABORTED: "socket error",
  UND_ERR_SOCKET: "socket error",
  UND_ERR_CLOSED: "socket error",
  ETIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
};

/** `timeout (8s)` for 8000 ms, `timeout (0.2s)` for 200 ms. */
export function timeoutLabel(timeoutMs: number): NetworkErrorLabel {
  return `timeout (${Number((timeoutMs / 1000).toFixed(3))}s)`;
}

/**
 * The label of an error thrown by `fetch` (or a socket) that ran with a `timeoutMs` deadline. Walks the
 * `cause` chain, since fetch wraps the socket's error in a generic `TypeError: fetch failed`.
 */
export function networkErrorLabel(err: unknown, timeoutMs: number): NetworkErrorLabel {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundError) return outboundErrorLabel(e, timeoutMs);
    const { name, code } = e as { name?: unknown; code?: unknown };
    if (name === "TimeoutError" || name === "AbortError") return timeoutLabel(timeoutMs);
    if (typeof code !== "string") continue;
    const label = codeLabel(code);
    if (label === "timeout") return timeoutLabel(timeoutMs);
    if (label) return label;
  }
  return "unreachable";
}

function codeLabel(code: string): (typeof CODE_LABELS)[string] | undefined {
  return CODE_LABELS[code] ?? (code.startsWith("HPE_") ? "socket error" : undefined);
}

/** The label of a failure of the one outbound client (also the cause of an agent call's failure). */
function outboundErrorLabel(err: OutboundError, timeoutMs: number): NetworkErrorLabel {
  if (err.reason === "timeout" || err.reason === "aborted") return timeoutLabel(timeoutMs);
  if (err.detail.startsWith(CLOSED_WITHOUT_ANSWER)) return "socket error";
  const label = err.socketCode ? codeLabel(err.socketCode) : undefined;
  if (label === "timeout") return timeoutLabel(timeoutMs);
  return label ?? "unreachable";
}
