/**
 * Who may call a route, decided in one place: `route()` (../infra/http/errors.ts) calls
 * `authorizeRequest` with the route's declaration before its handler runs. `"public"`: anybody. `"session"`:
 * a signed-in session only (401; 403 `api_key_not_allowed` for an API key). `{area, access}`: a session, or a
 * Bearer `svc_` key holding `<area>:<access>` (401 without either, or for an unknown, revoked or expired key;
 * 403 `insufficient_scope` naming the scope); `optional: true` recognises a caller on a public route. The
 * cookie is looked at first; a key brings no cookies, so the cross-site check (../infra/http/origin.ts)
 * concerns cookie sessions only. Outside a declared route the readers below see the cookie alone: a key
 * reaches nothing that was not declared for it.
 */
import { type ApiAccess, type ApiArea, grantsScope, scopeName } from "@svc/common/api-scopes";
import { lookUpApiKey } from "@svc/common/credentials";
import { emailNotVerified } from "../accounts/errors";
import { bearerToken } from "../apikeys/authenticate";
import { apiKeyExpired, apiKeyNotAllowed, insufficientScope, invalidApiKey } from "../apikeys/errors";
import type { WebConfig } from "../infra/config";
import type { WebContext } from "../infra/context";
import { signInFirst } from "./errors";
import { type SessionUser, sessionOf, sessionUserFrom } from "./service";

/** A route that sessions and API keys with `<area>:<access>` reach. */
export interface ScopedAuth {
  area: ApiArea;
  access: ApiAccess;
  /** Public, but a caller who brings a session or a key with the scope is recognised. */
  optional?: true;
}

/** What a route declares about who may call it (see above). */
export type RouteAuth = "public" | "session" | ScopedAuth;

/** Who called: a session's user, or an API key's owner with the key's scopes. */
export type Caller =
  | { via: "session"; user: SessionUser; sessionId: string }
  | { via: "apiKey"; user: SessionUser; apiKeyId: string; scopes: string[] };

/** The caller each request was authorized as (null: a public or optional route, nobody recognised). */
const callers = new WeakMap<Request, Caller | null>();
/** Each wrapped handler's declaration, for the test that checks every route has one. */
const declarations = new WeakMap<object, RouteAuth>();

/** Records a wrapped handler's declaration (route() calls it). */
export function declareRouteAuth<T extends object>(handler: T, auth: RouteAuth): T {
  declarations.set(handler, auth);
  return handler;
}

/** The declaration of a route handler, or undefined when it was not wrapped with one. */
export function routeAuthOf(handler: unknown): RouteAuth | undefined {
  return typeof handler === "function" ? declarations.get(handler) : undefined;
}

/** `files:write`, or `session` / `public`: how the OpenAPI document and errors name a declaration. */
export function requiredScopeOf(auth: RouteAuth): string {
  return typeof auth === "string" ? auth : scopeName(auth.area, auth.access);
}

/** Decides whether the request may call a route declared `auth`, and remembers its caller for the handler. */
export async function authorizeRequest(ctx: WebContext, request: Request, auth: RouteAuth): Promise<void> {
  if (auth === "public") {
    callers.set(request, null);
    return;
  }
  const session = await sessionOf(ctx, request);
  if (session) {
    callers.set(request, { via: "session", ...session });
    return;
  }
  const token = bearerToken(request);
  if (auth === "session") throw token ? apiKeyNotAllowed() : signInFirst();
  if (!token) {
    if (!auth.optional) throw signInFirst();
    callers.set(request, null);
    return;
  }
  const key = await lookUpApiKey(ctx, token);
  if (!key) throw invalidApiKey();
  if (key.status === "expired") throw apiKeyExpired(key.expiresAt);
  const { owner } = key;
  if (!grantsScope(owner.scopes, auth.area, auth.access)) {
    throw insufficientScope(scopeName(auth.area, auth.access));
  }
  callers.set(request, {
    via: "apiKey",
    user: sessionUserFrom(owner.user, ctx.config),
    apiKeyId: owner.apiKeyId,
    scopes: owner.scopes,
  });
}

/**
 * The caller of a request that route() authorized; outside one (or before), the session cookie's. Null when
 * nobody is signed in.
 */
export async function callerOf(ctx: WebContext, request: Request): Promise<Caller | null> {
  if (callers.has(request)) return callers.get(request) ?? null;
  const session = await sessionOf(ctx, request);
  return session ? { via: "session", ...session } : null;
}

/** The caller of the request: a session or an API key the route accepts; 401 without one. */
export async function requireCaller(ctx: WebContext, request: Request): Promise<Caller> {
  const caller = await callerOf(ctx, request);
  if (!caller) throw signInFirst();
  return caller;
}

/** Who acted, as the records that keep it store it (a claim, a post): the user, and the key if one was used. */
export function actorOf(caller: Caller): { userId: string; apiKeyId?: string } {
  return caller.via === "apiKey"
    ? { userId: caller.user.id, apiKeyId: caller.apiKeyId }
    : { userId: caller.user.id };
}

/** The id of what proved the caller — its session's row, or its API key's — for what must end with it. */
export function credentialIdOf(caller: Caller): string {
  return caller.via === "session" ? caller.sessionId : caller.apiKeyId;
}

/** The signed-in user of a request, or null (an optional route's anonymous caller). */
export async function signedInUserOf(ctx: WebContext, request: Request): Promise<SessionUser | null> {
  return (await callerOf(ctx, request))?.user ?? null;
}

/** The user of a request (its session, or the API key its route accepts); 401 without one. */
export async function requireSessionUser(ctx: WebContext, request: Request): Promise<SessionUser> {
  return (await requireCaller(ctx, request)).user;
}

/**
 * The session of a request and its user, for what must end with the session: 401 without one, 403 for an
 * API key's call.
 */
export async function requireSession(
  ctx: WebContext,
  request: Request,
): Promise<{ sessionId: string; user: SessionUser }> {
  const caller = await requireCaller(ctx, request);
  if (caller.via !== "session") throw apiKeyNotAllowed();
  return { sessionId: caller.sessionId, user: caller.user };
}

/** 403 unless the account's email is confirmed (or REQUIRE_VERIFIED_EMAIL is off). */
export function assertEmailVerified(
  config: Pick<WebConfig, "REQUIRE_VERIFIED_EMAIL" | "SMTP_URL">,
  account: { emailVerified: boolean },
): void {
  if (config.REQUIRE_VERIFIED_EMAIL && !account.emailVerified) throw emailNotVerified(!config.SMTP_URL);
}

/** The user of a request whose email is confirmed: 401 without a caller, 403 unconfirmed. */
export async function requireVerifiedUser(ctx: WebContext, request: Request): Promise<SessionUser> {
  const user = await requireSessionUser(ctx, request);
  assertEmailVerified(ctx.config, user);
  return user;
}
