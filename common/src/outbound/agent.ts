/**
 * The one client of the agent surface (the wrapper and, through it, the runtime gateway), for the backend
 * and the web alike: at the URL stored in the agent's record (never one taken from a request or a job),
 * with the gateway token as Bearer, redirects refused (one could carry the token elsewhere), a deadline over
 * the whole exchange and a cap on the answer's size. Built on the one outbound client. A call that carries
 * a secret names the key the agent must prove it holds (`identityKey`): it then goes out only on a
 * connection on which the agent's wrapper proved it (see agent-identity.ts).
 */
import { provenAgentConnections } from "./agent-identity";
import { createOutboundClient } from "./fetch";
import { OutboundError } from "./guard";

/** Largest answer read from an agent (after decompression); more fails the call. */
export const AGENT_MAX_RESPONSE_BYTES = 1024 * 1024;

export type AgentCallFailure = "timeout" | "aborted" | "unreachable" | "redirect" | "too_large" | "identity";

/** An agent call that failed: unreachable, timed out, redirected, too large, or answered with an error status. */
export class AgentCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly reason?: AgentCallFailure,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "AgentCallError";
  }

  /** The socket error of an `unreachable` call (`ECONNREFUSED`, …). */
  get socketCode(): string | undefined {
    return this.cause instanceof OutboundError ? this.cause.socketCode : undefined;
  }
}

export interface AgentRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path on the agent's URL, starting with `/`. */
  path: string;
  token: string | null;
  /** Sent as JSON when present. */
  body?: unknown;
  timeoutMs: number;
  maxResponseBytes?: number;
  /** Gives the call up early (e.g. the job's claim was lost). */
  signal?: AbortSignal;
  /** Who the messages name: "the agent" unless told (e.g. "the agent gateway"). */
  subject?: string;
  /** A redirect is answered as its status (never followed) instead of failing the call. */
  returnRedirects?: boolean;
  /**
   * The agent's wrapper admin password: before the request (and its `token`) is sent, the wrapper at the
   * URL must prove it holds it (`GET /api/identity`), and the request travels on the connection that did.
   * Every call that carries a secret sets it; one that cannot be proven fails with reason `identity`.
   */
  identityKey?: string;
}

export interface AgentAnswer {
  status: number;
  /** The answer's content type ("" when none). */
  contentType: string;
  text: string;
}

const agentClient = createOutboundClient({
  name: "the agent",
  maxResponseBytes: AGENT_MAX_RESPONSE_BYTES,
  headers: { accept: "application/json" },
});

/** Calls `baseUrl` + `request.path`; any status is an answer, everything else an AgentCallError. */
export async function requestAgent(baseUrl: string, request: AgentRequest): Promise<AgentAnswer> {
  const subject = request.subject ?? "the agent";
  try {
    const answer = await agentClient.request({
      method: request.method,
      url: `${baseUrl.replace(/\/+$/, "")}${request.path}`,
      headers: request.token ? { authorization: `Bearer ${request.token}` } : {},
      json: request.body,
      timeoutMs: request.timeoutMs,
      maxResponseBytes: request.maxResponseBytes,
      signal: request.signal,
      returnRedirects: request.returnRedirects,
      name: subject,
      agent: request.identityKey ? provenAgentConnections(baseUrl, request.identityKey) : undefined,
    });
    return { status: answer.status, contentType: answer.headers["content-type"] ?? "", text: answer.text };
  } catch (err) {
    throw toAgentCallError(err, subject, request.timeoutMs);
  }
}

/** The outbound client's failure in the agent surface's words (the failure stays its cause). */
function toAgentCallError(err: unknown, subject: string, timeoutMs: number): unknown {
  if (!(err instanceof OutboundError)) return err;
  const cause = { cause: err };
  switch (err.reason) {
    case "timeout":
      return new AgentCallError(
        `${subject} did not answer within ${timeoutMs / 1000} s`,
        undefined,
        "timeout",
        cause,
      );
    case "too_large":
      return new AgentCallError(
        `${subject}'s answer is larger than ${err.maxBytes} bytes`,
        err.status,
        "too_large",
        cause,
      );
    case "redirect":
    case "aborted":
    case "identity":
      return new AgentCallError(err.message, undefined, err.reason, cause);
    default:
      return new AgentCallError(
        `${subject} could not be reached (${err.socketCode ?? err.detail})`,
        undefined,
        "unreachable",
        cause,
      );
  }
}
