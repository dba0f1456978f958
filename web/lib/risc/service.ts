/**
 * POST /api/security/risc: security event tokens (RISC / Shared Signals) pushed by the identity provider.
 * A token is verified (RS256 by `kid` against the provider's published keys, issuer, audience), recorded by
 * `jti` so a replay is acknowledged without acting again, and each event is applied to the account it names.
 */
import { idpAccounts, processedSecurityEvents, users } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify } from "jose";
import { findUserByEmail } from "../accounts/users";
import { IdpUpstreamError } from "../idp/client";
import { IDP_PROVIDER } from "../idp/service";
import type { WebContext } from "../infra/context";
import { deleteUserSessions } from "../sessions/service";
import { invalidToken, signingKeysUnavailable } from "./errors";
import {
  type SecurityEventClaims,
  securityEventClaimsSchema,
  securityEventDataSchema,
  securityEventTokenOf,
} from "./inputs";
import { hasKid, riscSigningKeys, type SigningKeyCache } from "./keys";

export type SecurityEventReceipt = { ok: true } | { ok: true; duplicate: true };

type Tx = Parameters<Parameters<WebContext["db"]["transaction"]>[0]>[0];

/** Verifies a security event token and acts on it once; throws 400 `invalid_token` when validation fails. */
export async function receiveSecurityEvent(
  ctx: WebContext,
  body: string,
  keys: SigningKeyCache = riscSigningKeys,
): Promise<SecurityEventReceipt> {
  const claims = await verifySecurityEventToken(ctx, securityEventTokenOf(body), keys);
  return ctx.db.transaction(async (tx) => {
    const recorded = await tx
      .insert(processedSecurityEvents)
      .values({ jti: claims.jti, events: claims.events, receivedAt: ctx.clock.now() })
      .onConflictDoNothing()
      .returning({ jti: processedSecurityEvents.jti });
    if (recorded.length === 0) return { ok: true, duplicate: true } as const;
    for (const [uri, data] of Object.entries(claims.events)) await applySecurityEvent(ctx, tx, uri, data);
    ctx.logger.info({ jti: claims.jti, events: Object.keys(claims.events) }, "security event processed");
    return { ok: true } as const;
  });
}

async function verifySecurityEventToken(
  ctx: WebContext,
  token: string,
  keys: SigningKeyCache,
): Promise<SecurityEventClaims> {
  const { IDP_ISSUER: issuer, IDP_CLIENT_ID: clientId } = ctx.config;
  if (!issuer || !clientId) throw invalidToken("identity provider not configured: cannot validate the token");
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw invalidToken("token header is not valid");
  }
  if (header.alg !== "RS256") throw invalidToken("token must be signed with RS256");
  if (typeof header.kid !== "string" || header.kid === "") throw invalidToken("token header has no kid");

  let keySet: Awaited<ReturnType<SigningKeyCache["keysFor"]>>;
  try {
    keySet = await keys.keysFor(ctx, issuer, header.kid);
  } catch (err) {
    // Our side cannot check the token now; a 5xx lets the provider deliver it again later.
    if (err instanceof IdpUpstreamError) {
      ctx.logger.error({ reason: err.message }, "security event signing keys unavailable");
      throw signingKeysUnavailable();
    }
    throw err;
  }
  if (!hasKid(keySet, header.kid)) throw invalidToken("token signed with an unknown key (kid)");

  let payload: unknown;
  try {
    ({ payload } = await jwtVerify(token, createLocalJWKSet(keySet), {
      issuer,
      audience: clientId,
      algorithms: ["RS256"],
      currentDate: ctx.clock.now(),
    }));
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) throw invalidToken(`token rejected: ${err.message}`);
    throw err;
  }
  const claims = securityEventClaimsSchema.safeParse(payload);
  if (!claims.success) {
    const issue = claims.error.issues[0];
    throw invalidToken(`claim ${issue?.path.join(".") || "set"}: ${issue?.message ?? "not valid"}`);
  }
  return claims.data;
}

/** `https://schemas.openid.net/secevent/risc/event-type/sessions-revoked` → `sessions-revoked`. */
export function eventName(uri: string): string {
  return uri.replace(/\/+$/, "").split("/").pop() ?? uri;
}

async function applySecurityEvent(ctx: WebContext, tx: Tx, uri: string, data: unknown): Promise<void> {
  const name = eventName(uri);
  const parsed = securityEventDataSchema.safeParse(data);
  const subject = parsed.success ? parsed.data.subject : undefined;
  const userId = subject ? await findSubjectUser(ctx, tx, subject) : undefined;
  ctx.logger.info({ event: name, matched: Boolean(userId) }, "security event");
  if (!userId) return;
  const now = ctx.clock.now();
  switch (name) {
    case "sessions-revoked":
    case "tokens-revoked":
      await revokeAccess(tx, userId);
      return;
    case "account-disabled":
      await revokeAccess(tx, userId);
      await tx.update(users).set({ idpSignInBlockedAt: now, updatedAt: now }).where(eq(users.id, userId));
      return;
    case "account-enabled":
      await tx.update(users).set({ idpSignInBlockedAt: null, updatedAt: now }).where(eq(users.id, userId));
      return;
    default:
      // `verification` and events this platform does not act on are acknowledged only.
      return;
  }
}

/** The account of an event subject: by email, else by the provider's `sub` (when of our issuer). */
async function findSubjectUser(
  ctx: WebContext,
  tx: Tx,
  subject: { iss?: string; sub?: string; email?: string },
): Promise<string | undefined> {
  if (subject.email) {
    const user = await findUserByEmail({ db: tx }, subject.email);
    if (user) return user.id;
  }
  if (subject.sub && (!subject.iss || subject.iss === ctx.config.IDP_ISSUER)) {
    const rows = await tx
      .select({ userId: idpAccounts.userId })
      .from(idpAccounts)
      .where(and(eq(idpAccounts.provider, IDP_PROVIDER), eq(idpAccounts.providerAccountId, subject.sub)))
      .limit(1);
    return rows[0]?.userId;
  }
  return undefined;
}

/** Ends every session of the account and forgets the provider tokens stored for it. */
async function revokeAccess(tx: Tx, userId: string): Promise<void> {
  await deleteUserSessions({ db: tx }, userId);
  await tx
    .update(idpAccounts)
    .set({ accessTokenEncrypted: null, refreshTokenEncrypted: null, idTokenEncrypted: null })
    .where(and(eq(idpAccounts.userId, userId), eq(idpAccounts.provider, IDP_PROVIDER)));
}
