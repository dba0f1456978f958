/**
 * The one client of the layer-1 (Solana) JSON-RPC: plain JSON-RPC 2.0 over the outbound client, each answer
 * checked with zod. The platform's configured URL is called as configured; a URL a user saved goes through
 * the outbound URL guard on every call (no loopback, private or link-local targets). Whatever the node
 * answers is bounded before use (./units.ts): amounts, decimals, addresses and error texts, and the answer's
 * size, so a hostile node of a user's can neither hold the process nor swell our answer.
 */
import { createOutboundClient, guardedClients, OutboundError } from "@svc/common";
import { z } from "zod";
import { solanaAddress } from "./inputs";
import { rawAmount, tokenDecimals } from "./units";

export const L1_RPC_TIMEOUT_MS = 10_000;
const L1_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The most of a node's error text passed on in ours. */
const RPC_ERROR_TEXT_MAX = 200;
export const SPL_TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

/** A failed RPC call: unreachable, refused by the guard, an HTTP error, a JSON-RPC error or a bad answer. */
export class L1RpcError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "L1RpcError";
  }
}

const configured = createOutboundClient({ name: "the L1 RPC", maxResponseBytes: L1_MAX_RESPONSE_BYTES });
/** The guarded clients for user-saved URLs, one per allow list (kept for their connection pools). */
const guardedClient = guardedClients({ name: "your saved L1 RPC", maxResponseBytes: L1_MAX_RESPONSE_BYTES });

export interface L1Endpoint {
  url: string;
  /** A URL a user saved: every call passes the outbound URL guard with this allow list. */
  guardAllowHosts?: readonly string[];
}

let nextId = 1;

/** Calls `method` and returns its `result`, checked with `schema`. */
export async function callL1Rpc<S extends z.ZodType>(
  endpoint: L1Endpoint,
  method: string,
  params: unknown[],
  schema: S,
): Promise<z.infer<S>> {
  const client = endpoint.guardAllowHosts ? guardedClient(endpoint.guardAllowHosts) : configured;
  let body: unknown;
  try {
    const answer = await client.request({
      method: "POST",
      url: endpoint.url,
      json: { jsonrpc: "2.0", id: nextId++, method, params },
      timeoutMs: L1_RPC_TIMEOUT_MS,
    });
    if (!answer.ok) throw new L1RpcError(`the L1 RPC answered HTTP ${answer.status} to ${method}`);
    body = answer.json();
  } catch (err) {
    if (err instanceof OutboundError) throw new L1RpcError(err.message);
    throw err;
  }
  const parsed = rpcAnswer.safeParse(body);
  if (!parsed.success) throw new L1RpcError(`the L1 RPC's answer to ${method} is not JSON-RPC`);
  if (parsed.data.error)
    throw new L1RpcError(
      `the L1 RPC refused ${method}: ${parsed.data.error.message.slice(0, RPC_ERROR_TEXT_MAX)} (${parsed.data.error.code})`,
    );
  const result = schema.safeParse(parsed.data.result);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue ? ` (${issue.path.join(".") || "result"}: ${issue.message})` : "";
    throw new L1RpcError(`the L1 RPC's answer to ${method} has an unexpected shape${where}`);
  }
  return result.data;
}

const rpcAnswer = z.object({
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});

const withContext = <T extends z.ZodType>(value: T) => z.object({ value });

/** A u64 as a JSON number: whole, 0 to 2^64 (u64::MAX reads as 2^64 in a double). */
const u64Number = z
  .number()
  .nonnegative()
  .max(2 ** 64, "must be a u64")
  .refine(Number.isInteger, "must be a whole number");

/**
 * Lamports are a u64: past 2^53 JSON numbers arrive rounded (still whole), which zod's `.int()` (safe integers
 * only) would refuse; the SOL figure is lamports / 1e9 either way.
 */
export const balanceResult = withContext(u64Number);

export const tokenAccountsResult = withContext(
  z.array(
    z.object({
      account: z.object({
        data: z.object({
          parsed: z.object({
            info: z.object({
              mint: solanaAddress,
              tokenAmount: z.object({ amount: rawAmount, decimals: tokenDecimals }),
            }),
          }),
        }),
      }),
    }),
  ),
);

export const accountInfoResult = withContext(
  z
    .object({
      executable: z.boolean(),
      owner: solanaAddress,
      rentEpoch: u64Number.optional(),
    })
    .nullable(),
);
