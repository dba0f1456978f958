/**
 * Peer of per-call MPP billing in the gateway bench: the x402 payment middleware, `@x402/express` 2.27 on
 * Express 5, as its README deploys it (`paymentMiddleware(routes, x402ResourceServer)` with the exact EVM
 * scheme), in front of a handler that pipes the call to the upstream over a keep-alive agent. Every paid
 * call is verified by the loopback x402 facilitator (`POST /verify`: EIP-3009 signature, terms, nonce not
 * used), passed on, then settled (`POST /settle`: each nonce once) before the buffered answer leaves.
 */
import http from "node:http";
import { HTTPFacilitatorClient, x402ResourceServer as X402ResourceServer } from "@x402/core/server";
import type { Network, SupportedResponse } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware } from "@x402/express";
import express from "express";
import { forward } from "./forward";

export interface X402ExpressOptions {
  upstreamPort: number;
  facilitatorUrl: string;
  /** The path charged for (`POST`), the same on the upstream. */
  path: string;
  /** Money, e.g. "$0.05" (USDC of the network). */
  price: string;
  payTo: `0x${string}`;
  network: Network;
}

/**
 * The HTTP facilitator client, except that the kinds it supports are stated here: the loopback facilitator
 * answers `/verify` and `/settle` only, and what a real one's `/supported` lists for this network is this.
 */
class LoopbackFacilitatorClient extends HTTPFacilitatorClient {
  constructor(
    url: string,
    private readonly network: Network,
  ) {
    super({ url });
  }

  override async getSupported(): Promise<SupportedResponse> {
    return {
      kinds: [{ x402Version: 2, scheme: "exact", network: this.network }],
      extensions: [],
      signers: {},
    };
  }
}

export function x402ExpressServer(options: X402ExpressOptions): http.Server {
  const resourceServer = new X402ResourceServer(
    new LoopbackFacilitatorClient(options.facilitatorUrl, options.network),
  );
  registerExactEvmScheme(resourceServer);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const app = express();
  app.disable("x-powered-by");
  app.use(
    paymentMiddleware(
      {
        [`POST ${options.path}`]: {
          accepts: { scheme: "exact", price: options.price, network: options.network, payTo: options.payTo },
          description: "bench plugin call",
          mimeType: "application/json",
        },
      },
      resourceServer,
    ),
  );
  app.post(options.path, (req, res) =>
    forward(req, res, { port: options.upstreamPort, path: options.path, agent }),
  );
  return http.createServer(app);
}
