import { HttpError } from "@svc/common";

/** The chain area's failures, one constructor per code. */
export const marketDataFailed = (reason: string) =>
  new HttpError(500, "market_data_failed", `the price could not be fetched: ${reason}`);
export const walletLookupFailed = (reason: string) =>
  new HttpError(500, "l1_rpc_failed", `the wallet could not be read: ${reason}`);
export const verifyRpcFailed = (reason: string) =>
  new HttpError(502, "l1_rpc_failed", `the token balance could not be read: ${reason}`);
/** A refused `rpcUrl`; the message says why, naming the field as the form does. */
export const badRpcUrl = (reason: string) =>
  new HttpError(400, "invalid_rpc_url", `RPC URL ${reason}`, { field: "rpcUrl" });
