/**
 * A loopback Solana JSON-RPC node for tests and benches: `getBalance`, `getTokenAccountsByOwner` (by
 * `programId` or `mint`, `jsonParsed`) and `getAccountInfo`, answered from an in-memory account table in the
 * node's JSON-RPC 2.0 shapes. `delayMs` delays every answer; `failWith` makes it answer an HTTP error or a
 * JSON-RPC error; `hang` makes it never answer.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export const SPL_TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

export interface FakeTokenHolding {
  mint: string;
  /** Raw amount in the token's smallest unit. */
  amount: string;
  decimals: number;
}

export interface FakeSolanaAccount {
  lamports: number;
  executable?: boolean;
  owner?: string;
  rentEpoch?: number;
  tokens?: FakeTokenHolding[];
}

export interface FakeSolanaRpc {
  url: string;
  requests: FakeUpstream["requests"];
  accounts: Map<string, FakeSolanaAccount>;
  /** JSON-RPC methods received, in order. */
  methods(): string[];
  delayMs: number;
  /**
   * An HTTP status (500, 429, …) or "rpc-error" for a JSON-RPC error answer (with `message`, default a
   * node-behind message); null to work again.
   */
  failWith(failure: number | "rpc-error" | null, message?: string): void;
  hang(on: boolean): void;
  close(): Promise<void>;
}

interface RpcRequest {
  jsonrpc: "2.0";
  id: number | string;
  method: string;
  params?: unknown[];
}

export async function startFakeSolanaRpc(): Promise<FakeSolanaRpc> {
  const accounts = new Map<string, FakeSolanaAccount>();
  let failure: number | "rpc-error" | null = null;
  let failureMessage = "Node is behind by 42 slots";
  let hanging = false;
  const state = { delayMs: 0 };
  const context = { slot: 312_000_000, apiVersion: "2.2.0" };

  const answer = (request: RpcRequest): unknown => {
    const [address, second, third] = (request.params ?? []) as [string, Record<string, string>, unknown];
    const account = accounts.get(address);
    switch (request.method) {
      case "getBalance":
        return { context, value: account?.lamports ?? 0 };
      case "getAccountInfo":
        return {
          context,
          value: account
            ? {
                data: ["", "base64"],
                executable: account.executable ?? false,
                lamports: account.lamports,
                owner: account.owner ?? "11111111111111111111111111111111",
                rentEpoch: account.rentEpoch ?? Number.MAX_SAFE_INTEGER,
                space: 0,
              }
            : null,
        };
      case "getTokenAccountsByOwner": {
        if ((third as { encoding?: string } | undefined)?.encoding !== "jsonParsed")
          throw Object.assign(new Error("only jsonParsed is served"), { code: -32602 });
        const filter = second ?? {};
        const holdings = (account?.tokens ?? []).filter((t) =>
          filter.mint ? t.mint === filter.mint : filter.programId === SPL_TOKEN_PROGRAM,
        );
        return {
          context,
          value: holdings.map((t, i) => ({
            pubkey: `TokenAcct${i}${address.slice(0, 20)}`,
            account: {
              data: {
                parsed: {
                  info: {
                    isNative: false,
                    mint: t.mint,
                    owner: address,
                    state: "initialized",
                    tokenAmount: {
                      amount: t.amount,
                      decimals: t.decimals,
                      uiAmount: Number(t.amount) / 10 ** t.decimals,
                      uiAmountString: String(Number(t.amount) / 10 ** t.decimals),
                    },
                  },
                  type: "account",
                },
                program: "spl-token",
                space: 165,
              },
              executable: false,
              lamports: 2_039_280,
              owner: SPL_TOKEN_PROGRAM,
              rentEpoch: Number.MAX_SAFE_INTEGER,
              space: 165,
            },
          })),
        };
      }
      default:
        throw Object.assign(new Error("Method not found"), { code: -32601 });
    }
  };

  const upstream = await startFakeUpstream(async (_req, res, raw) => {
    if (hanging) return;
    if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
    if (typeof failure === "number") return sendJson(res, failure, { error: "node failing" });
    let request: RpcRequest;
    try {
      request = JSON.parse(raw.toString("utf8")) as RpcRequest;
    } catch {
      return sendJson(res, 200, {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error" },
      });
    }
    if (failure === "rpc-error")
      return sendJson(res, 200, {
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32005, message: failureMessage },
      });
    try {
      sendJson(res, 200, { jsonrpc: "2.0", id: request.id, result: answer(request) });
    } catch (err) {
      const { code = -32603, message } = err as Error & { code?: number };
      sendJson(res, 200, { jsonrpc: "2.0", id: request.id, error: { code, message } });
    }
  });

  return {
    url: upstream.url,
    requests: upstream.requests,
    accounts,
    methods: () => upstream.requests.map((r) => (JSON.parse(r.body.toString("utf8")) as RpcRequest).method),
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    failWith(next, message = "Node is behind by 42 slots") {
      failure = next;
      failureMessage = message;
    },
    hang(on) {
      hanging = on;
    },
    close: () => upstream.close(),
  };
}
