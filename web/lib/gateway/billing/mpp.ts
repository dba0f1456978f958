/**
 * MPP billing ("Payment" HTTP authentication scheme, mppx 0.11, EVM charge). A 402 carries an mppx challenge,
 * HMAC-bound with `MPP_SECRET`, in `WWW-Authenticate` (led by the spec's `amount`, `currency`, `recipient`).
 * A credential is checked offline by mppx (challenge issued here and unexpired, bound to this price and
 * scope, EIP-3009 `transferWithAuthorization` signature under the token's EIP-712 domain (`config.mppToken`),
 * amount, recipient, token, chain, validity window, nonce = the challenge hash), then claimed in
 * `mpp_used_nonces` by `(payer, nonce)` before it is settled through the facilitator, so one credential
 * settles once however often it is sent.
 */
import type { Logger } from "@svc/common";
import type { Database } from "@svc/db";
import { mppUsedNonces } from "@svc/db/schema";
import { and, eq, sql } from "drizzle-orm";
import { Challenge, Credential } from "mppx";
import { Types } from "mppx/evm";
import { evm, Mppx } from "mppx/server";
import type { WebConfig } from "../../config";
import { notConfigured, settlementStillUnknown, settlementUnknown } from "../errors";
import { microsToUsd } from "../pricing";
import { type Eip3009Authorization, settleAuthorization } from "./facilitator";

type MppConfig = Pick<
  WebConfig,
  | "PUBLIC_URL"
  | "MPP_RECIPIENT"
  | "MPP_CHAIN_ID"
  | "MPP_TOKEN_ADDRESS"
  | "mppToken"
  | "MPP_TOKEN_DECIMALS"
  | "MPP_SECRET"
  | "MPP_FACILITATOR_URL"
  | "MPP_FACILITATOR_TIMEOUT_MS"
>;

/** What the price is for: a plugin call or a session deposit (bound into the challenge as its scope). */
export interface MppCharge {
  micros: bigint;
  description: string;
  scope: string;
}

/** The spec's `mpp` block of a 402 body. */
export interface MppOffer {
  scheme: "Payment";
  amount: string;
  currency: string;
  recipient: string;
  description: string;
  nonce: string;
  expiresAt: number;
}

export const MPP_CURRENCY = "USD";

function createServer(config: MppConfig, recipient: `0x${string}`, secretKey: string, facilitator: string) {
  const terms = settlementTerms(config);
  return Mppx.create({
    secretKey,
    realm: new URL(config.PUBLIC_URL).host,
    methods: [
      evm.charge({
        currency: config.MPP_TOKEN_ADDRESS as `0x${string}`,
        recipient,
        chainId: config.MPP_CHAIN_ID,
        decimals: config.MPP_TOKEN_DECIMALS,
        // The token's own EIP-712 domain (mppx's table, or MPP_TOKEN_NAME for another token): mppx reads its
        // table only for an asset object, never for an address.
        authorization: config.mppToken,
        // Only reached through mppx's own broadcast; the gateway settles through settleMppPayment.
        settle: async ({ payload }) => {
          const settled = await settleAuthorization(facilitator, payload, terms);
          if (settled.outcome !== "settled") throw new Error(settled.reason);
          return { reference: settled.transaction };
        },
      }),
    ],
  });
}
type MppServer = ReturnType<typeof createServer>;

const servers = new WeakMap<object, MppServer>();

/** The mppx server of a configuration; 503 naming the first missing variable. */
export function mppServer(config: MppConfig): MppServer {
  const known = servers.get(config);
  if (known) return known;
  if (!config.MPP_RECIPIENT) throw notConfigured("MPP_RECIPIENT", "MPP payments");
  if (!config.MPP_SECRET) throw notConfigured("MPP_SECRET", "MPP payments");
  if (!config.MPP_FACILITATOR_URL) throw notConfigured("MPP_FACILITATOR_URL", "MPP payments");
  const server = createServer(
    config,
    config.MPP_RECIPIENT as `0x${string}`,
    config.MPP_SECRET,
    config.MPP_FACILITATOR_URL,
  );
  servers.set(config, server);
  return server;
}

export function mppConfigured(config: MppConfig): boolean {
  return Boolean(config.MPP_RECIPIENT && config.MPP_SECRET && config.MPP_FACILITATOR_URL);
}

/** A fresh challenge for `charge`: the 402's `mpp` block and its `WWW-Authenticate` value. */
export async function mppChallenge(
  config: MppConfig,
  charge: MppCharge,
): Promise<{ offer: MppOffer; wwwAuthenticate: string }> {
  const server = mppServer(config);
  const amount = microsToUsd(charge.micros);
  const challenge = await server.challenge.evm.charge({
    amount,
    description: charge.description,
    scope: charge.scope,
  });
  const recipient = config.MPP_RECIPIENT as string;
  const standard = Challenge.serialize(challenge).replace(/^Payment\s+/, "");
  return {
    offer: {
      scheme: "Payment",
      amount,
      currency: MPP_CURRENCY,
      recipient,
      description: charge.description,
      nonce: Types.challengeHash(challenge),
      expiresAt: Date.parse(challenge.expires as string),
    },
    wwwAuthenticate: `Payment amount=${amount}, currency=${MPP_CURRENCY}, recipient=${recipient}, ${standard}`,
  };
}

/** A credential mppx accepted: who pays, and the authorization to settle. */
export interface VerifiedMppPayment {
  payer: string;
  nonce: string;
  authorization: Eip3009Authorization;
  expiresAt: Date | null;
}

/** Why a credential was refused (the caller answers 402 with a fresh challenge). */
export class MppRefusal extends Error {}

/** A credential settled before (its claim holds the transaction): `purpose` is what it paid for. */
export class MppAlreadySettled extends MppRefusal {
  constructor(
    readonly purpose: string | null,
    readonly transaction: string,
  ) {
    super("this payment credential was already used");
  }
}

/** The credential of `Authorization: Payment <credential>`, or null when the header is not that scheme. */
export function paymentCredentialOf(authorization: string | null): string | null {
  if (!authorization) return null;
  return Credential.extractPaymentScheme(authorization) ? authorization.trim() : null;
}

/** Checks a credential offline against `charge`; throws MppRefusal naming the reason. No network, no state. */
export async function verifyMppCredential(
  config: MppConfig,
  credential: string,
  charge: MppCharge,
): Promise<VerifiedMppPayment> {
  const server = mppServer(config);
  let parsed: Credential.Credential<Eip3009Authorization & { type: string }>;
  try {
    parsed = Credential.deserialize(credential);
    await server.validateCredential(parsed, {
      request: { amount: microsToUsd(charge.micros) },
      scope: charge.scope,
    });
  } catch (err) {
    throw new MppRefusal(err instanceof Error ? err.message : "the payment credential is not valid");
  }
  const { from, to, value, validAfter, validBefore, nonce, signature } = parsed.payload;
  const expires = parsed.challenge.expires;
  return {
    payer: from.toLowerCase(),
    nonce: nonce.toLowerCase(),
    authorization: { from, to, value, validAfter, validBefore, nonce, signature },
    expiresAt: expires ? new Date(expires) : null,
  };
}

/**
 * Claims the credential, then settles it: the `(payer, nonce)` row is inserted first, so only the first of
 * any number of copies reaches the facilitator. A refused settlement frees the claim (402); one whose outcome
 * is unknown (timeout, broken connection, facilitator failure after sending) keeps it and answers 504/502
 * `payment_settlement_unknown`, so the credential is never settled twice. A copy of a settled credential
 * throws MppAlreadySettled; of one whose settlement is older than the facilitator's timeout and has no
 * transaction, 502 `payment_settlement_unknown`; of one still being settled, MppRefusal. The transaction hash.
 */
export async function settleMppPayment(
  ctx: { db: Database; config: MppConfig; logger: Logger },
  payment: VerifiedMppPayment,
  purpose: string,
): Promise<string> {
  const { db, config } = ctx;
  const where = and(eq(mppUsedNonces.payer, payment.payer), eq(mppUsedNonces.nonce, payment.nonce));
  const timeoutMs = config.MPP_FACILITATOR_TIMEOUT_MS;
  const claimed = await db
    .insert(mppUsedNonces)
    .values({ payer: payment.payer, nonce: payment.nonce, pluginId: purpose, expiresAt: payment.expiresAt })
    .onConflictDoNothing()
    .returning({ nonce: mppUsedNonces.nonce });
  if (claimed.length === 0) {
    const [claim] = await db
      .select({
        txHash: mppUsedNonces.txHash,
        purpose: mppUsedNonces.pluginId,
        unresolved: sql<boolean>`${mppUsedNonces.createdAt} < now() - make_interval(secs => ${timeoutMs / 1000})`,
      })
      .from(mppUsedNonces)
      .where(where);
    if (claim?.txHash) throw new MppAlreadySettled(claim.purpose, claim.txHash);
    if (claim?.unresolved) throw settlementStillUnknown();
    throw new MppRefusal("this payment credential was already used (its settlement is in progress)");
  }
  const settled = await settleAuthorization(
    config.MPP_FACILITATOR_URL as string,
    payment.authorization,
    settlementTerms(config),
    timeoutMs,
  );
  if (settled.outcome === "refused") {
    await db.delete(mppUsedNonces).where(where);
    throw new MppRefusal(settled.reason);
  }
  if (settled.outcome === "unknown") {
    ctx.logger.error(
      { payer: payment.payer, nonce: payment.nonce, purpose, reason: settled.reason },
      "MPP settlement outcome unknown: the claim is kept; check the chain for this authorization",
    );
    throw settlementUnknown(settled.timedOut ? 504 : 502, settled.reason);
  }
  await db.update(mppUsedNonces).set({ txHash: settled.transaction }).where(where);
  return settled.transaction;
}

function settlementTerms(config: MppConfig) {
  return {
    chainId: config.MPP_CHAIN_ID,
    token: config.MPP_TOKEN_ADDRESS,
    tokenName: config.mppToken.name,
    tokenVersion: config.mppToken.version,
  };
}
