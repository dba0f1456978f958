/**
 * MPP billing ("Payment" HTTP authentication scheme, mppx 0.11, EVM charge). A 402 carries an mppx challenge,
 * HMAC-bound with `MPP_SECRET`, in `WWW-Authenticate` (led by `amount`, `currency`, `recipient`).
 * A credential is checked offline by mppx (challenge issued here and unexpired, bound to this price and
 * scope, EIP-3009 `transferWithAuthorization` signature under the token's EIP-712 domain (`config.mppToken`),
 * amount, recipient, token, chain, validity window, nonce = the challenge hash), then claimed in
 * `mpp_used_nonces` by `(payer, nonce)` before it is settled through the facilitator, so one credential
 * settles once however often it is sent.
 */

import { isDeepStrictEqual } from "node:util";
import type { Logger } from "@svc/common";
import type { Database } from "@svc/db";
import { mppUsedNonces } from "@svc/db/schema";
import { and, eq, sql } from "drizzle-orm";
import { Challenge, Credential, Errors, Expires, PaymentRequest } from "mppx";
import { Methods, Types } from "mppx/evm";
import { evm, Mppx } from "mppx/server";
import { getAddress } from "viem";
import type { WebConfig } from "../../infra/config";
import { notConfigured, settlementStillUnknown, settlementUnknown } from "../errors";
import { microsToUsd } from "../pricing";
import { authorizationDigest, eip712DomainSeparator, recoverSigner } from "./eip3009";
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

/** The `mpp` block of a 402 body. */
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

/**
 * Checks a credential offline against `charge`; throws MppRefusal naming the reason. No network, no state.
 * The checks and their order are mppx 0.11's `validateCredential` for an EVM charge (method, challenge HMAC,
 * expiry, payload shape, scope, route binding, then the EIP-3009 terms and signature), with mppx's own
 * errors; what differs is the cost: the route's expected request is derived once per price, and the
 * signature is recovered by `recoverSigner` (eip3009.ts) with the token's domain separator hashed once.
 */
export async function verifyMppCredential(
  config: MppConfig,
  credential: string,
  charge: MppCharge,
): Promise<VerifiedMppPayment> {
  const verifier = mppVerifier(config);
  let parsed: Credential.Credential<Eip3009Authorization & { type: string }>;
  try {
    parsed = Credential.deserialize(credential);
    validateCharge(verifier, parsed, charge);
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

/** What a configuration's credentials are checked against, derived once (see mppVerifier). */
interface MppVerifier {
  secretKey: string;
  realm: string;
  /** The EVM charge method's defaults: chain, token, recipient, decimals, credential types. */
  defaults: Record<string, unknown>;
  token: { name: string; version: string };
  /** The request a route charging `amount` issues (mppx's charge schema applied to the defaults). */
  requests: Map<string, Record<string, unknown>>;
  /** EIP-712 domain separators by `chainId:token`. */
  domains: Map<string, Uint8Array>;
}

const verifiers = new WeakMap<object, MppVerifier>();
/** Prices seen in a process are a few plugin prices and deposit amounts; past this the table starts over. */
const MAX_REMEMBERED_PRICES = 1000;

function mppVerifier(config: MppConfig): MppVerifier {
  const known = verifiers.get(config);
  if (known) return known;
  const server = mppServer(config);
  const method = server.methods.find(
    (m) => m.name === Methods.charge.name && m.intent === Methods.charge.intent,
  );
  if (!method) throw new Error("the mppx server has no EVM charge method");
  const verifier: MppVerifier = {
    secretKey: config.MPP_SECRET as string,
    realm: server.realm as string,
    defaults: method.defaults as Record<string, unknown>,
    token: config.mppToken,
    requests: new Map(),
    domains: new Map(),
  };
  verifiers.set(config, verifier);
  return verifier;
}

/** mppx's `validateCredential` (server/Mppx.js) then its EVM charge `validate` (evm/server/Charge.js). */
function validateCharge(
  verifier: MppVerifier,
  credential: Credential.Credential<Eip3009Authorization & { type: string }>,
  charge: MppCharge,
): void {
  const { challenge } = credential;
  const id = challenge.id;
  // The route scope and other server data travel in `opaque`; mppx reads them from there, not from `meta`.
  const meta = challenge.opaque === undefined ? challenge.meta : PaymentRequest.deserialize(challenge.opaque);
  if (challenge.method !== Methods.charge.name || challenge.intent !== Methods.charge.intent) {
    throw new Errors.InvalidChallengeError({
      id,
      reason: `no registered method for ${challenge.method}/${challenge.intent}`,
    });
  }
  if (!Challenge.verify(challenge, { secretKey: verifier.secretKey })) {
    throw new Errors.InvalidChallengeError({ id, reason: "challenge was not issued by this server" });
  }
  Expires.assert(challenge.expires, id);
  // A payload of the wrong shape is refused with the schema's own error, as mppx does.
  const payload: Eip3009Authorization = Types.ChargePayloadSchema.parse(credential.payload);
  if ((meta as Record<string, unknown> | undefined)?.[SCOPE_KEY] !== charge.scope) {
    throw new Errors.InvalidChallengeError({
      id,
      reason: "credential scope does not match this route's requirements",
    });
  }
  const mismatch = routeMismatch(verifier, challenge, meta, charge);
  if (mismatch) {
    throw new Errors.InvalidChallengeError({
      id,
      reason: `credential ${mismatch} does not match this route's requirements`,
    });
  }

  const request = challenge.request as ChargeRequest;
  const refuse = (reason: string) => new Errors.VerificationFailedError({ reason });
  if (!request.methodDetails.credentialTypes?.includes("authorization")) {
    throw refuse("EVM authorization credentials are not supported for this challenge");
  }
  if (request.methodDetails.splits?.length)
    throw refuse("EVM authorization credentials do not support splits");
  if (!sameAddress(payload.to, request.recipient)) throw refuse("EVM authorization recipient mismatch");
  if (payload.value !== request.amount) throw refuse("EVM authorization amount mismatch");
  if (payload.nonce !== Types.challengeHash(challenge))
    throw refuse("EVM authorization challenge hash mismatch");
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (BigInt(payload.validAfter) > now) throw refuse("EVM authorization is not valid yet");
  if (BigInt(payload.validBefore) <= now) throw refuse("EVM authorization has expired");
  const chainId = request.methodDetails.chainId;
  const signer = recoverSigner(
    authorizationDigest(domainOf(verifier, chainId, request.currency), payload),
    payload.signature,
  );
  if (!sameAddress(signer, payload.from)) throw refuse("EVM authorization signature mismatch");
  if (
    credential.source &&
    credential.source !== Types.toSource({ address: getAddress(payload.from), chainId })
  ) {
    throw refuse("EVM authorization source mismatch");
  }
}

/** mppx's reserved `meta` key binding a challenge to its route's scope. */
const SCOPE_KEY = "_mppx_scope";

type ChargeRequest = {
  amount: string;
  currency: `0x${string}`;
  recipient: string;
  methodDetails: { chainId: number; credentialTypes?: string[]; splits?: unknown[] };
};

/** Two addresses are one when their 20 bytes are (viem's `getAddress` equality). */
function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function domainOf(verifier: MppVerifier, chainId: number, token: `0x${string}`): Uint8Array {
  const key = `${chainId}:${token}`;
  let separator = verifier.domains.get(key);
  if (!separator) {
    separator = eip712DomainSeparator({ ...verifier.token, chainId, verifyingContract: token });
    verifier.domains.set(key, separator);
  }
  return separator;
}

/**
 * The first field in which the credential's challenge differs from the one this route would issue for
 * `charge` (mppx's pinned binding: method, intent, realm, the scope in `opaque`, then amount, currency,
 * recipient, chain, memo, session protocol, splits, unit type), or undefined. The HMAC has already shown the
 * challenge is one this server issued; this shows it was issued for this price and scope.
 */
function routeMismatch(
  verifier: MppVerifier,
  challenge: Challenge.Challenge,
  meta: unknown,
  charge: MppCharge,
): string | undefined {
  if (challenge.method !== Methods.charge.name) return "method";
  if (challenge.intent !== Methods.charge.intent) return "intent";
  if (challenge.realm !== verifier.realm) return "realm";
  if (!isDeepStrictEqual({ [SCOPE_KEY]: charge.scope }, meta)) return "opaque";
  const expected = pinnedBinding(routeRequest(verifier, microsToUsd(charge.micros)));
  const actual = pinnedBinding(challenge.request);
  for (const field of PINNED_FIELDS) {
    if (!isDeepStrictEqual(expected[field], actual[field])) return field;
  }
  return undefined;
}

function routeRequest(verifier: MppVerifier, amount: string): Record<string, unknown> {
  let request = verifier.requests.get(amount);
  if (!request) {
    request = PaymentRequest.fromMethod(Methods.charge, { ...verifier.defaults, amount } as never) as Record<
      string,
      unknown
    >;
    if (verifier.requests.size >= MAX_REMEMBERED_PRICES) verifier.requests.clear();
    verifier.requests.set(amount, request);
  }
  return request;
}

const PINNED_FIELDS = [
  "amount",
  "currency",
  "recipient",
  "chainId",
  "memo",
  "sessionProtocol",
  "splits",
  "unitType",
] as const;

/** mppx's `getPinnedRequestBinding`: the economically significant fields, normalized for comparison. */
function pinnedBinding(request: Record<string, unknown>): Record<(typeof PINNED_FIELDS)[number], unknown> {
  const details = (request.methodDetails ?? {}) as Record<string, unknown>;
  return {
    amount: scalar(request.amount ?? details.amount),
    currency: scalar(request.currency ?? details.currency),
    recipient: scalar(request.recipient ?? details.recipient),
    chainId: scalar(request.chainId ?? details.chainId),
    memo: hex(details.memo),
    sessionProtocol: scalar(details.sessionProtocol),
    splits: comparable(details.splits),
    unitType: scalar(request.unitType ?? details.unitType),
  };
}

function scalar(value: unknown): string | undefined {
  return value === undefined ? undefined : String(value);
}

function hex(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  return text.startsWith("0x") ? text.toLowerCase() : text;
}

function comparable(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([left], [right]) => left.localeCompare(right))
        .map(([key, nested]) => [key, comparable(nested)]),
    );
  }
  return typeof value === "string" ? hex(value) : value;
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
