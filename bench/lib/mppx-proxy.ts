/**
 * Peer of per-call MPP billing in the gateway bench: mppx's own paid gateway, `Proxy.create` from
 * `mppx/proxy` (mppx 0.11), charging every `POST /<service>/<path>` through `mppx.evm.charge` and passing it
 * to the upstream with mppx's fetch proxy (its Node listener: node:http → fetch Request → Response). The
 * payment is checked as ours is: mppx validates the credential offline (challenge HMAC, expiry, route scope,
 * EIP-3009 terms and signature recovery), then the authorization is settled by the same loopback x402
 * facilitator (`POST /settle`, which checks the signature again and settles each nonce once). mppx leaves
 * replays to a custom settler: here the facilitator's nonce check is that guard. Its router matches routes
 * with `URLPattern`, a global from Node 23.8 on: on Node 20 it takes `urlpattern-polyfill`, as a deployment
 * on Node 20 would.
 */
import http from "node:http";
import "urlpattern-polyfill";
import { Proxy as MppxProxy, Service } from "mppx/proxy";
import { evm, Mppx } from "mppx/server";

export interface MppxProxyOptions {
  upstreamPort: number;
  facilitatorUrl: string;
  /** The service id: calls go to `/<service>/<upstreamPath>`. */
  service: string;
  /** The upstream path charged for (`POST`). */
  upstreamPath: string;
  /** Display units of the token, e.g. "0.05". */
  amount: string;
  recipient: `0x${string}`;
  chainId: number;
  token: `0x${string}`;
  tokenDomain: { name: string; version: string };
}

export function mppxProxyServer(options: MppxProxyOptions): http.Server {
  const settleUrl = `${options.facilitatorUrl.replace(/\/+$/, "")}/settle`;
  const mppx = Mppx.create({
    secretKey: "bench-mppx-proxy-secret-0123456789abcdef",
    realm: "bench-mppx-proxy",
    methods: [
      evm.charge({
        currency: options.token,
        recipient: options.recipient,
        chainId: options.chainId,
        decimals: 6,
        authorization: options.tokenDomain,
        // What mppx's own facilitator client sends to `/settle` (x402 v2 exact, EIP-3009).
        settle: async ({ payload, request }) => {
          const { signature, type: _type, ...authorization } = payload;
          const paymentRequirements = {
            scheme: "exact",
            network: `eip155:${request.methodDetails.chainId}`,
            amount: request.amount,
            asset: request.currency,
            payTo: request.recipient,
            maxTimeoutSeconds: 300,
            extra: { assetTransferMethod: "eip3009", ...options.tokenDomain },
          };
          const response = await fetch(settleUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              x402Version: 2,
              paymentPayload: {
                x402Version: 2,
                accepted: paymentRequirements,
                payload: { authorization, signature },
              },
              paymentRequirements,
            }),
          });
          const settled = (await response.json()) as {
            success?: boolean;
            transaction?: string;
            errorReason?: string;
          };
          if (!settled.success || !settled.transaction) {
            throw new Error(`settlement refused: ${settled.errorReason ?? response.status}`);
          }
          return { reference: settled.transaction };
        },
      }),
    ],
  });
  const proxy = MppxProxy.create({
    services: [
      Service.from(options.service, {
        baseUrl: `http://127.0.0.1:${options.upstreamPort}`,
        routes: {
          [`POST ${options.upstreamPath}`]: mppx.evm.charge({
            amount: options.amount,
            description: "bench plugin call",
          }),
        },
      }),
    ],
  });
  return http.createServer(proxy.listener);
}
