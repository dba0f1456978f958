/**
 * A loopback MPP seller (mppx 0.11 server, `evm/charge`) for tests: every request needs a payment of
 * `amount` (display units) of Base Sepolia USDC to `recipient`; the challenge goes out in
 * `WWW-Authenticate: Payment …`, the credential comes back in `Authorization: Payment …`. Settlement checks
 * the EIP-3009 signature itself and refuses a nonce it has already settled (mppx leaves replays to the
 * settler), and answers a `Payment-Receipt` whose reference is the signature's hash.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { authorizationTypes } from "@x402/evm";
import { evm, Mppx, NodeListener } from "mppx/server";
import { getAddress, keccak256, verifyTypedData } from "viem";
import { BASE_SEPOLIA_USDC } from "./x402";

export const MPP_SELLER_RECIPIENT = "0x3333333333333333333333333333333333333333";

export interface FakeMppSeller {
  url: string;
  /** Settled payments, in order. */
  settlements: { from: string; value: string; reference: string }[];
  /** Requests received (with or without a credential). */
  requests: number;
  /** The display-unit price of the next challenges. */
  amount: string;
  close(): Promise<void>;
}

export async function startFakeMppSeller(options: { amount?: string } = {}): Promise<FakeMppSeller> {
  const settledNonces = new Set<string>();
  const seller = {
    url: "",
    settlements: [] as FakeMppSeller["settlements"],
    requests: 0,
    amount: options.amount ?? "0.01",
  };
  const mppx = Mppx.create({
    secretKey: "fake-mpp-seller-secret-key-0123456789abcdef",
    realm: "mpp-seller.test",
    methods: [
      evm.charge({
        currency: BASE_SEPOLIA_USDC,
        recipient: MPP_SELLER_RECIPIENT,
        chainId: 84532,
        decimals: 6,
        authorization: { name: "USDC", version: "2" },
        settle: async ({ payload, request }) => {
          if (settledNonces.has(payload.nonce)) throw new Error("credential already used");
          const valid = await verifyTypedData({
            address: getAddress(payload.from),
            domain: {
              name: "USDC",
              version: "2",
              chainId: 84532,
              verifyingContract: getAddress(request.currency),
            },
            types: authorizationTypes,
            primaryType: "TransferWithAuthorization",
            message: {
              from: getAddress(payload.from),
              to: getAddress(payload.to),
              value: BigInt(payload.value),
              validAfter: BigInt(payload.validAfter),
              validBefore: BigInt(payload.validBefore),
              nonce: payload.nonce as `0x${string}`,
            },
            signature: payload.signature as `0x${string}`,
          });
          if (!valid) throw new Error("invalid signature");
          settledNonces.add(payload.nonce);
          const reference = keccak256(payload.signature as `0x${string}`);
          seller.settlements.push({ from: payload.from, value: payload.value, reference });
          return { reference };
        },
      }),
    ],
  });
  const server: Server = createServer(async (req, res) => {
    seller.requests++;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(name, value);
    const request = new Request(`${seller.url}${req.url}`, { method: req.method, headers });
    try {
      const result = await mppx.evm.charge({ amount: seller.amount })(request);
      if (result.status === 402) return await NodeListener.sendResponse(res, result.challenge as Response);
      const answer = Response.json({ data: "the paid content", path: req.url });
      await NodeListener.sendResponse(res, result.withReceipt(answer) as Response);
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  seller.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(seller, {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
