/**
 * The one client of the EVM JSON-RPC (EVM_RPC_URL): an ERC-20 balance by `eth_call` of `balanceOf` and
 * `decimals`, ABI-encoded with viem, over the outbound client.
 */
import { createOutboundClient, OutboundError } from "@svc/common";
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  formatUnits,
  type Hex,
} from "viem";
import { z } from "zod";

export const EVM_RPC_TIMEOUT_MS = 10_000;

export class EvmRpcError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EvmRpcError";
  }
}

const client = createOutboundClient({ name: "the EVM RPC" });
const answerSchema = z.object({
  result: z
    .string()
    .regex(/^0x[0-9a-fA-F]*$/)
    .optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});
let nextId = 1;

async function ethCall(rpcUrl: string, to: Address, data: Hex): Promise<Hex> {
  let body: unknown;
  try {
    const answer = await client.request({
      method: "POST",
      url: rpcUrl,
      json: { jsonrpc: "2.0", id: nextId++, method: "eth_call", params: [{ to, data }, "latest"] },
      timeoutMs: EVM_RPC_TIMEOUT_MS,
    });
    if (!answer.ok) throw new EvmRpcError(`the EVM RPC answered HTTP ${answer.status}`);
    body = answer.json();
  } catch (err) {
    if (err instanceof OutboundError) throw new EvmRpcError(err.message);
    throw err;
  }
  const parsed = answerSchema.safeParse(body);
  if (!parsed.success) throw new EvmRpcError("the EVM RPC's answer is not JSON-RPC");
  if (parsed.data.error) throw new EvmRpcError(`the EVM RPC refused eth_call: ${parsed.data.error.message}`);
  if (!parsed.data.result || parsed.data.result === "0x")
    throw new EvmRpcError("the token contract answered nothing");
  return parsed.data.result as Hex;
}

/** The holder's balance of the ERC-20 `token`, as a decimal string in token units (`"12.5"`). */
export async function erc20Balance(rpcUrl: string, token: Address, holder: Address): Promise<string> {
  const [balance, decimals] = await Promise.all([
    ethCall(rpcUrl, token, encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder] })),
    ethCall(rpcUrl, token, encodeFunctionData({ abi: erc20Abi, functionName: "decimals" })),
  ]);
  const raw = decodeFunctionResult({ abi: erc20Abi, functionName: "balanceOf", data: balance });
  const places = decodeFunctionResult({ abi: erc20Abi, functionName: "decimals", data: decimals });
  return formatUnits(raw, places);
}
