/**
 * Identity-provider (OpenID Connect) sign-in: GET /api/auth/idp starts an authorization-code flow with
 * PKCE; GET /api/auth/idp/callback finishes it, finds or creates the account by email, links the provider
 * account (tokens encrypted at rest) and starts a session.
 */
import { deriveKey, encryptText, safeEqual } from "@svc/common";
import { idpAccounts, type User, users } from "@svc/db/schema";
import { and, eq, sql } from "drizzle-orm";
import { errors as joseErrors, jwtVerify } from "jose";
import { claimUnprovenAccount } from "../accounts/claim";
import { createUser, findUserByEmail } from "../accounts/users";
import type { WebConfig } from "../infra/config";
import type { WebContext } from "../infra/context";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "../infra/http/return-path";
import { healClaimedAgents } from "../runtime/operations";
import { createSession } from "../sessions/service";
import { discoverOidc, exchangeCode, IdpUpstreamError, idTokenKeys } from "./client";
import { codeChallengeS256, newFlowState, openFlowState, sealFlowState } from "./flow";
import {
  type CallbackQuery,
  callbackQuerySchema,
  type IdpErrorCode,
  idTokenClaimsSchema,
  type TokenResponse,
} from "./inputs";

/** The `provider` of every idp_accounts row this sign-in writes. */
export const IDP_PROVIDER = "oidc";
export const IDP_SCOPES = "openid email profile";

/** A failed sign-in; `code` is the `/login?error=` value. */
export class IdpSignInError extends Error {
  readonly code: IdpErrorCode;

  constructor(code: IdpErrorCode, message: string) {
    super(message);
    this.name = "IdpSignInError";
    this.code = code;
  }
}

type IdpSettings = { issuer: string; clientId: string; clientSecret?: string };

/** Issuer and client id, or null when sign-in with the provider is not configured. */
export function idpSettings(config: WebConfig): IdpSettings | null {
  if (!config.IDP_ISSUER || !config.IDP_CLIENT_ID) return null;
  return {
    issuer: config.IDP_ISSUER,
    clientId: config.IDP_CLIENT_ID,
    clientSecret: config.IDP_CLIENT_SECRET,
  };
}

/** An absolute URL of the web app (PUBLIC_URL may carry a path prefix). */
export function publicUrl(config: WebConfig, path: string): string {
  return new URL(
    path.replace(/^\/+/, ""),
    config.PUBLIC_URL.endsWith("/") ? config.PUBLIC_URL : `${config.PUBLIC_URL}/`,
  ).toString();
}

export const callbackUrl = (config: WebConfig) => publicUrl(config, "/api/auth/idp/callback");
export const loginErrorUrl = (config: WebConfig, code: IdpErrorCode) =>
  publicUrl(config, `/login?error=${encodeURIComponent(code)}`);

export const idpTokenKey = (config: WebConfig) => deriveKey(config.SESSION_SECRET, "idp-tokens");

/**
 * Where GET /api/auth/idp sends the browser, and the sealed flow cookie when it goes to the provider; the
 * flow keeps `next`, the page to return to once signed in.
 */
export async function startIdpSignIn(
  ctx: WebContext,
  next?: string,
): Promise<{ location: string; sealedFlow?: string }> {
  const settings = idpSettings(ctx.config);
  if (!settings) return { location: loginErrorUrl(ctx.config, "IdpNotConfigured") };
  let authorizationEndpoint: string;
  try {
    authorizationEndpoint = (await discoverOidc(settings.issuer)).authorization_endpoint;
  } catch (err) {
    ctx.logger.error({ err }, "identity provider discovery failed");
    return { location: loginErrorUrl(ctx.config, "IdpAuthError") };
  }
  const flow = newFlowState(ctx.clock.now(), safeReturnPath(next) ?? undefined);
  const url = new URL(authorizationEndpoint);
  const params: Record<string, string> = {
    response_type: "code",
    client_id: settings.clientId,
    redirect_uri: callbackUrl(ctx.config),
    scope: IDP_SCOPES,
    access_type: "offline",
    prompt: "select_account",
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: codeChallengeS256(flow.codeVerifier),
    code_challenge_method: "S256",
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { location: url.toString(), sealedFlow: sealFlowState(ctx.config, flow) };
}

export interface IdpCallbackInput {
  query: Record<string, string>;
  /** The flow cookie's value. */
  flowCookie: string | undefined;
  ip: string;
  userAgent?: string;
}

/**
 * Finishes the sign-in. Never throws: the answer is a redirect to the flow's `next` page (`/dashboard`
 * unless sign-in was asked from another page) with a new session token,
 * or to `/login?error=<code>`.
 */
export async function completeIdpSignIn(
  ctx: WebContext,
  input: IdpCallbackInput,
): Promise<{ location: string; sessionToken?: string }> {
  try {
    const userId = await signInWithProvider(ctx, input);
    const { token } = await createSession(ctx, userId, { ip: input.ip, userAgent: input.userAgent });
    const next = openFlowState(ctx.config, input.flowCookie, ctx.clock.now())?.next;
    return {
      location: publicUrl(ctx.config, safeReturnPath(next) ?? DEFAULT_RETURN_PATH),
      sessionToken: token,
    };
  } catch (err) {
    const code: IdpErrorCode = err instanceof IdpSignInError ? err.code : "IdpAuthError";
    const log = { code, err };
    if (code === "IdpAuthError") ctx.logger.error(log, "identity-provider sign-in failed");
    else ctx.logger.warn(log, "identity-provider sign-in refused");
    return { location: loginErrorUrl(ctx.config, code) };
  }
}

async function signInWithProvider(ctx: WebContext, input: IdpCallbackInput): Promise<string> {
  const settings = idpSettings(ctx.config);
  if (!settings) throw new IdpSignInError("IdpNotConfigured", "identity provider not configured");
  const query: CallbackQuery = callbackQuerySchema.parse(input.query);
  if (query.error) {
    const code = query.error === "access_denied" ? "AccessDenied" : "IdpAuthFailed";
    throw new IdpSignInError(code, `provider answered error ${query.error.slice(0, 64)}`);
  }
  const flow = openFlowState(ctx.config, input.flowCookie, ctx.clock.now());
  if (!flow) throw new IdpSignInError("IdpAuthFailed", "flow cookie missing, invalid or expired");
  if (!query.state || !safeEqual(query.state, flow.state))
    throw new IdpSignInError("IdpAuthFailed", "state mismatch");
  if (!query.code) throw new IdpSignInError("IdpAuthFailed", "no authorization code");

  const discovery = await discoverOidc(settings.issuer);
  let tokens: TokenResponse;
  try {
    tokens = await exchangeCode(discovery, {
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      code: query.code,
      redirectUri: callbackUrl(ctx.config),
      codeVerifier: flow.codeVerifier,
    });
  } catch (err) {
    if (err instanceof IdpUpstreamError) throw new IdpSignInError("IdpTokenFailed", err.message);
    throw err;
  }

  const { payload } = await jwtVerify(tokens.id_token, idTokenKeys(discovery.jwks_uri), {
    issuer: settings.issuer,
    audience: settings.clientId,
    currentDate: ctx.clock.now(),
  }).catch((err: unknown) => {
    const reason = err instanceof joseErrors.JOSEError ? `${err.code}: ${err.message}` : String(err);
    throw new IdpSignInError("IdpAuthError", `id_token rejected (${reason})`);
  });
  const claims = idTokenClaimsSchema.safeParse(payload);
  if (!claims.success) throw new IdpSignInError("IdpAuthError", "id_token claims malformed");
  if (!claims.data.nonce || !safeEqual(claims.data.nonce, flow.nonce)) {
    throw new IdpSignInError("IdpAuthError", "id_token nonce mismatch");
  }
  const email = claims.data.email?.trim();
  if (!email) throw new IdpSignInError("IdpNoEmail", "id_token carries no email");

  return linkAccount(ctx, {
    sub: claims.data.sub,
    email,
    emailVerified: claims.data.email_verified === true,
    name: claims.data.name,
    tokens,
  });
}

interface ProviderIdentity {
  sub: string;
  email: string;
  emailVerified: boolean;
  name?: string;
  tokens: TokenResponse;
}

/**
 * The account for a verified identity, in one transaction: the account already linked to this provider
 * account; else the account with the email (linked only when the provider verified the email; an account
 * whose email was never proven is claimed: everything its first owner added to get in is removed, see
 * `claimUnprovenAccount`); else a new account. Then the link row is written with the encrypted tokens.
 */
async function linkAccount(ctx: WebContext, identity: ProviderIdentity): Promise<string> {
  const now = ctx.clock.now();
  let revokedAgents: string[] = [];
  const linked = await ctx.db.transaction(async (tx) => {
    const linked = await tx
      .select({ user: users })
      .from(idpAccounts)
      .innerJoin(users, eq(users.id, idpAccounts.userId))
      .where(and(eq(idpAccounts.provider, IDP_PROVIDER), eq(idpAccounts.providerAccountId, identity.sub)))
      .limit(1);
    let user: User | undefined = linked[0]?.user;
    if (!user) {
      user = await findUserByEmail({ db: tx }, identity.email);
      if (user) {
        if (!identity.emailVerified) {
          throw new IdpSignInError("IdpAuthFailed", "email not verified by the provider; account not linked");
        }
        assertNotBlocked(user);
        if (!user.emailVerifiedAt) revokedAgents = await claimUnprovenAccount(tx, user.id, now);
      } else {
        user = await createUser(
          { db: tx, clock: ctx.clock },
          {
            email: identity.email,
            name: identity.name,
            emailVerifiedAt: identity.emailVerified ? now : null,
          },
        );
      }
    }
    assertNotBlocked(user);

    const key = idpTokenKey(ctx.config);
    const seal = (value: string | undefined) => (value ? encryptText(key, value) : null);
    const sealed = {
      accessTokenEncrypted: seal(identity.tokens.access_token),
      refreshTokenEncrypted: seal(identity.tokens.refresh_token),
      idTokenEncrypted: seal(identity.tokens.id_token),
      scope: identity.tokens.scope ?? null,
      expiresAt: identity.tokens.expires_in
        ? new Date(now.getTime() + identity.tokens.expires_in * 1000)
        : null,
    };
    await tx
      .insert(idpAccounts)
      .values({
        provider: IDP_PROVIDER,
        providerAccountId: identity.sub,
        userId: user.id,
        ...sealed,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [idpAccounts.provider, idpAccounts.providerAccountId],
        // A provider sends a refresh token only on first consent: keep the stored one when none comes.
        set: {
          ...sealed,
          refreshTokenEncrypted: sql`coalesce(excluded.refresh_token_encrypted, ${idpAccounts.refreshTokenEncrypted})`,
          updatedAt: now,
        },
      });
    return { id: user.id, email: user.email };
  });
  if (revokedAgents.length > 0) void healClaimedAgents(ctx, linked, revokedAgents);
  return linked.id;
}

function assertNotBlocked(user: User): void {
  if (user.idpSignInBlockedAt) {
    throw new IdpSignInError("IdpAuthFailed", "identity-provider sign-in blocked by a security event");
  }
}
