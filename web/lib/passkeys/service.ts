import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type { Clock } from "@svc/common";
import type { Database } from "@svc/db";
import { type Passkey, passkeys } from "@svc/db/schema";
import { and, asc, eq, lt } from "drizzle-orm";
import { findUserByEmail } from "../accounts/users";
import type { WebConfig } from "../infra/config";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeAddressRate } from "../infra/ratelimit/service";
import { createSession, type SessionUser } from "../sessions/service";
import { challengeToBase64Url, consumeChallenge, issueChallenge } from "./challenges";
import {
  alreadyRegistered,
  noPasskeyAccount,
  noSuchPasskey,
  passkeyNotFound,
  registrationNotVerified,
  verificationFailed,
} from "./errors";
import type { AuthOptionsInput, AuthVerifyInput, RegisterVerifyInput } from "./inputs";

/** The ceremony timeout (ms), sent in both kinds of options. */
export const PASSKEY_TIMEOUT_MS = 60_000;

interface Deps {
  db: Database;
  clock: Clock;
  config: WebConfig;
  logger?: { info(obj: object, msg: string): void };
}

export interface CeremonyOptions<O> {
  options: O;
  /** `0x` hex; the client sends it back with the response. */
  challenge: string;
}

export interface PasskeySummary {
  id: string;
  label: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const TRANSPORTS: readonly AuthenticatorTransportFuture[] = [
  "ble",
  "cable",
  "hybrid",
  "internal",
  "nfc",
  "smart-card",
  "usb",
];

/** Transports as stored: only the values WebAuthn defines (the list comes from the client). */
function knownTransports(values: readonly unknown[] | undefined): AuthenticatorTransportFuture[] {
  return TRANSPORTS.filter((t) => values?.includes(t));
}

/** A credential descriptor for options: the id, plus its transports when they are known. */
function descriptor(passkey: Pick<Passkey, "id" | "transports">) {
  const transports = knownTransports(passkey.transports);
  return transports.length > 0 ? { id: passkey.id, transports } : { id: passkey.id };
}

async function passkeysOf(deps: Deps, userId: string): Promise<Passkey[]> {
  return deps.db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt));
}

/** Why a ceremony failed goes to the log (debug aid); the client only learns that it failed. */
function logFailure(deps: Deps, userId: string, err: unknown): void {
  const reason = err instanceof Error ? err.message : "not verified";
  deps.logger?.info({ userId, reason }, "passkey verification failed");
}

/** POST /api/passkey/register/options: creation options for the signed-in user. */
export async function registrationOptions(
  deps: Deps,
  user: SessionUser,
): Promise<CeremonyOptions<PublicKeyCredentialCreationOptionsJSON>> {
  const existing = await passkeysOf(deps, user.id);
  const issued = await issueChallenge(deps, user.id, "register");
  const options = await generateRegistrationOptions({
    rpName: deps.config.WEBAUTHN_RP_NAME,
    rpID: deps.config.rpId,
    userName: user.email,
    userDisplayName: user.name,
    // A stable user handle, so an authenticator replaces this user's old discoverable credential.
    userID: new TextEncoder().encode(user.id),
    challenge: issued.bytes,
    timeout: PASSKEY_TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: existing.map(descriptor),
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
  });
  return { options, challenge: issued.challenge };
}

/**
 * POST /api/passkey/register/verify: consumes the user's registration challenge, verifies the
 * attestation and stores the credential. 400 on a bad challenge, a failed verification or a credential
 * id that is already registered.
 */
export async function verifyRegistration(
  deps: Deps,
  userId: string,
  input: RegisterVerifyInput,
): Promise<void> {
  await consumeChallenge(deps, input.challenge, "register", userId);
  const credential = input.credential as unknown as RegistrationResponseJSON;
  let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>["registrationInfo"];
  try {
    const result = await verifyRegistrationResponse({
      response: credential,
      expectedChallenge: challengeToBase64Url(input.challenge),
      expectedOrigin: deps.config.origin,
      expectedRPID: deps.config.rpId,
      requireUserVerification: true,
    });
    info = result.verified ? result.registrationInfo : undefined;
  } catch (err) {
    logFailure(deps, userId, err);
  }
  if (!info) throw registrationNotVerified();

  const inserted = await deps.db
    .insert(passkeys)
    .values({
      id: info.credential.id,
      userId,
      publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
      signCount: info.credential.counter,
      transports: knownTransports(credential.response?.transports),
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      label: input.label,
      createdAt: deps.clock.now(),
    })
    .onConflictDoNothing({ target: passkeys.id })
    .returning({ id: passkeys.id });
  if (inserted.length === 0) {
    throw alreadyRegistered();
  }
}

/**
 * Public `POST /api/passkey/auth/options` calls per client IP: each stores a challenge row, so an unbounded
 * caller could fill the table. A person signing in needs one or two.
 */
export const PASSKEY_AUTH_OPTIONS_LIMIT = { points: 20, windowMs: 60 * 1000 };

/** Counts an auth-options request against the per-IP window: 429 (nothing else done) beyond it. */
export async function countPasskeyAuthOptions(deps: Deps, ip: string): Promise<void> {
  const limit = await consumeAddressRate(deps, "passkey-auth-options", ip, PASSKEY_AUTH_OPTIONS_LIMIT);
  if (!limit.allowed) {
    throw rateLimited("passkey sign-in attempts", limit.retryAfterSeconds);
  }
}

/** POST /api/passkey/auth/options: request options for the account's passkeys; 404 without any. */
export async function authenticationOptions(
  deps: Deps,
  input: AuthOptionsInput,
): Promise<CeremonyOptions<PublicKeyCredentialRequestOptionsJSON>> {
  const user = await findUserByEmail(deps, input.identifier);
  const own = user ? await passkeysOf(deps, user.id) : [];
  // One answer for "no account" and "no passkey": both mean passkey sign-in is not possible here.
  if (!user || own.length === 0) {
    throw noPasskeyAccount();
  }
  const issued = await issueChallenge(deps, user.id, "authenticate");
  const options = await generateAuthenticationOptions({
    rpID: deps.config.rpId,
    allowCredentials: own.map(descriptor),
    challenge: issued.bytes,
    timeout: PASSKEY_TIMEOUT_MS,
    userVerification: "required",
  });
  return { options, challenge: issued.challenge };
}

/**
 * POST /api/passkey/auth/verify: consumes the challenge, verifies the assertion against the stored
 * public key of the challenge user's credential, moves its counter forward and starts a session.
 * 400 bad challenge; 404 credential not the user's; 401 when the assertion does not verify or its
 * signed counter did not increase.
 */
export async function verifyAuthentication(
  deps: Deps,
  input: AuthVerifyInput,
  meta: { ip?: string; userAgent?: string },
): Promise<{ token: string; expiresAt: Date }> {
  const { userId } = await consumeChallenge(deps, input.challenge, "authenticate");
  const [passkey] = await deps.db
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.id, input.response.id), eq(passkeys.userId, userId)))
    .limit(1);
  if (!passkey) throw passkeyNotFound();

  const failed = () => verificationFailed();
  let info: Awaited<ReturnType<typeof verifyAuthenticationResponse>>["authenticationInfo"] | undefined;
  try {
    const result = await verifyAuthenticationResponse({
      response: input.response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challengeToBase64Url(input.challenge),
      expectedOrigin: deps.config.origin,
      expectedRPID: deps.config.rpId,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
        counter: passkey.signCount,
        transports: knownTransports(passkey.transports),
      },
      requireUserVerification: true,
    });
    info = result.verified ? result.authenticationInfo : undefined;
  } catch (err) {
    logFailure(deps, userId, err);
  }
  if (!info) throw failed();

  // The counter comes from the signed authenticator data. The conditional update keeps it monotonic even
  // when two assertions of one credential race; 0 -> 0 is allowed (authenticators without counters).
  const newCounter = info.newCounter;
  const updated = await deps.db
    .update(passkeys)
    .set({ signCount: newCounter, backedUp: info.credentialBackedUp, lastUsedAt: deps.clock.now() })
    .where(
      and(
        eq(passkeys.id, passkey.id),
        eq(passkeys.userId, userId),
        newCounter === 0 ? eq(passkeys.signCount, 0) : lt(passkeys.signCount, newCounter),
      ),
    )
    .returning({ id: passkeys.id });
  if (updated.length === 0) {
    logFailure(deps, userId, new Error(`counter ${newCounter} did not increase`));
    throw failed();
  }
  return createSession(deps, userId, meta);
}

/** GET /api/passkeys: the signed-in user's passkeys, oldest first. */
export async function listPasskeys(deps: Deps, userId: string): Promise<PasskeySummary[]> {
  return deps.db
    .select({
      id: passkeys.id,
      label: passkeys.label,
      createdAt: passkeys.createdAt,
      lastUsedAt: passkeys.lastUsedAt,
    })
    .from(passkeys)
    .where(eq(passkeys.userId, userId))
    .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

/** DELETE /api/passkeys/[id]: removes one of the user's own passkeys; anyone else's looks absent (404). */
export async function deletePasskey(deps: Deps, userId: string, id: string): Promise<void> {
  const deleted = await deps.db
    .delete(passkeys)
    .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
    .returning({ id: passkeys.id });
  if (deleted.length === 0) throw noSuchPasskey();
}
