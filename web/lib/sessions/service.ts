import { type Clock, newId, randomToken, SESSION_COOKIE, sha256Hex } from "@svc/common";
import { findSession } from "@svc/common/credentials";
import type { Database } from "@svc/db";
import { agents, sessions, type User } from "@svc/db/schema";
import { and, eq, ne } from "drizzle-orm";
import type { WebConfig } from "../infra/config";
import { readCookie, serializeCookie } from "../infra/http/cookies";

// The one name (@svc/common), which the backend's permission socket reads too.
export { SESSION_COOKIE };
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The `x-user-role` the web signs into the user context of its backend calls. */
export type UserContextRole = "admin" | "user";

export interface SessionUser {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
  /** Whether the account's email was proven (the link of the verification mail, or the identity provider). */
  emailVerified: boolean;
  /** Signed into backend calls made for this user; never shown to the browser. */
  contextRole: UserContextRole;
}

interface Deps {
  db: Database;
  clock: Clock;
  config: WebConfig;
}

/** Starts a session: a 32-byte random token for the cookie, only its SHA-256 stored. */
export async function createSession(
  deps: Deps,
  userId: string,
  meta: { ip?: string; userAgent?: string } = {},
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await deps.db.insert(sessions).values({
    id: newId("ses"),
    tokenHash: sha256Hex(token),
    userId,
    expiresAt,
    createdAt: now,
    lastSeenAt: now,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 512),
  });
  return { token, expiresAt };
}

/** Whether an account is an admin: granted in the database, or a proven ADMIN_EMAILS address. */
export function isAdminUser(
  user: { isAdmin: boolean; email: string; emailVerifiedAt: Date | null },
  config: WebConfig,
): boolean {
  return user.isAdmin || (user.emailVerifiedAt !== null && config.ADMIN_EMAILS.includes(user.email));
}

/**
 * The role signed for the backend: `admin` only for an ADMIN_EMAILS address whose ownership is proven. The
 * backend's admin check wants this role as well as the email in its own ADMIN_EMAILS, so an address someone
 * merely registered (never verified) cannot act as an administrator there.
 */
export function userContextRole(
  user: { email: string; emailVerifiedAt: Date | null },
  config: Pick<WebConfig, "ADMIN_EMAILS">,
): UserContextRole {
  return user.emailVerifiedAt !== null && config.ADMIN_EMAILS.includes(user.email) ? "admin" : "user";
}

/** The user behind a session token, or null when the token is unknown, deleted or expired. */
export async function findSessionUser(deps: Deps, token: string | undefined): Promise<SessionUser | null> {
  return (await findUserSession(deps, token))?.user ?? null;
}

/** The session (its row id, never the token) and user behind a session token, or null. */
async function findUserSession(
  deps: Deps,
  token: string | undefined,
): Promise<{ sessionId: string; user: SessionUser } | null> {
  if (!token) return null;
  const session = await findSession(deps.db, token, deps.clock.now());
  if (!session) return null;
  return { sessionId: session.sessionId, user: sessionUserFrom(session.user, deps.config) };
}

/** What the routes know of an account row: the same for a session's user and an API key's owner. */
export function sessionUserFrom(user: User, config: WebConfig): SessionUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    isAdmin: isAdminUser(user, config),
    emailVerified: user.emailVerifiedAt !== null,
    contextRole: userContextRole(user, config),
  };
}

/** The session user of a request (cookie `svc-session`), or null. */
export function sessionUserOf(deps: Deps, request: Request): Promise<SessionUser | null> {
  return findSessionUser(deps, readCookie(request, SESSION_COOKIE));
}

/** The session id and user of a request's cookie, or null (for what must end with the session). */
export function sessionOf(
  deps: Deps,
  request: Request,
): Promise<{ sessionId: string; user: SessionUser } | null> {
  return findUserSession(deps, readCookie(request, SESSION_COOKIE));
}

/** Deletes the session of a token (sign-out). */
export async function deleteSession(deps: { db: Database }, token: string | undefined): Promise<void> {
  if (token) await deps.db.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token)));
}

/** Deletes every session of a user (security events, account takeover protection). */
export async function deleteUserSessions(deps: { db: Database }, userId: string): Promise<void> {
  await deps.db.delete(sessions).where(eq(sessions.userId, userId));
}

/**
 * Whether the user has been here before this session: another session of theirs (signed in elsewhere, or
 * earlier and still open) or an agent they made. The overview welcomes a first visit, not "back".
 */
export async function hasVisitedBefore(
  deps: { db: Database },
  userId: string,
  token: string,
): Promise<boolean> {
  const [other] = await deps.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, sha256Hex(token))))
    .limit(1);
  if (other) return true;
  const [agent] = await deps.db
    .select({ id: agents.id })
    .from(agents)
    .where(eq(agents.userId, userId))
    .limit(1);
  return agent !== undefined;
}

export function sessionCookie(config: WebConfig, token: string): string {
  return serializeCookie(SESSION_COOKIE, token, {
    maxAgeSeconds: SESSION_TTL_MS / 1000,
    secure: config.cookieSecure,
  });
}

export function clearedSessionCookie(config: WebConfig): string {
  return serializeCookie(SESSION_COOKIE, "", { maxAgeSeconds: 0, secure: config.cookieSecure });
}
