/**
 * A loopback EVM JSON-RPC node for tests: `eth_chainId` and `eth_call` of an ERC-20's `balanceOf(address)`
 * and `decimals()`, answered from a balance table, ABI-encoded as a node would.
 */
import { decodeFunctionData, encodeFunctionResult, erc20Abi, type Hex } from "viem";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeEvmRpc {
  url: string;
  requests: FakeUpstream["requests"];
  chainId: number;
  /** `token:holder` (lower-case) → raw balance. */
  balances: Map<string, bigint>;
  decimals: number;
  failWith(status: number | null): void;
  close(): Promise<void>;
}

export async function startFakeEvmRpc(chainId = 8453): Promise<FakeEvmRpc> {
  const balances = new Map<string, bigint>();
  let failure: number | null = null;
  const state = { decimals: 6 };
  const upstream = await startFakeUpstream((_req, res, raw) => {
    if (failure !== null) return sendJson(res, failure, { error: "node failing" });
    const request = JSON.parse(raw.toString("utf8")) as { id: number; method: string; params: unknown[] };
    const reply = (result: unknown) => sendJson(res, 200, { jsonrpc: "2.0", id: request.id, result });
    if (request.method === "eth_chainId") return reply(`0x${chainId.toString(16)}`);
    if (request.method !== "eth_call")
      return sendJson(res, 200, {
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32601, message: "method not found" },
      });
    const [call] = request.params as [{ to: string; data: Hex }];
    const decoded = decodeFunctionData({ abi: erc20Abi, data: call.data });
    if (decoded.functionName === "decimals")
      return reply(encodeFunctionResult({ abi: erc20Abi, functionName: "decimals", result: state.decimals }));
    if (decoded.functionName === "balanceOf") {
      const holder = String(decoded.args[0]).toLowerCase();
      const balance = balances.get(`${call.to.toLowerCase()}:${holder}`) ?? 0n;
      return reply(encodeFunctionResult({ abi: erc20Abi, functionName: "balanceOf", result: balance }));
    }
    sendJson(res, 200, { jsonrpc: "2.0", id: request.id, error: { code: 3, message: "execution reverted" } });
  });
  return {
    url: upstream.url,
    requests: upstream.requests,
    chainId,
    balances,
    get decimals() {
      return state.decimals;
    },
    set decimals(value: number) {
      state.decimals = value;
    },
    failWith(status) {
      failure = status;
    },
    close: () => upstream.close(),
  };
}
