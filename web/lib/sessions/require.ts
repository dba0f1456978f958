import { emailNotVerified } from "../accounts/errors";
import type { WebConfig } from "../config";
import type { WebContext } from "../context";
import { signInFirst } from "./errors";
import { type SessionUser, sessionOf, sessionUserOf } from "./service";

/** The signed-in user of a request; 401 without a valid session. */
export async function requireSessionUser(ctx: WebContext, request: Request): Promise<SessionUser> {
  const user = await sessionUserOf(ctx, request);
  if (!user) throw signInFirst();
  return user;
}

/** The signed-in user of a request and the id of their session; 401 without a valid session. */
export async function requireSession(
  ctx: WebContext,
  request: Request,
): Promise<{ sessionId: string; user: SessionUser }> {
  const session = await sessionOf(ctx, request);
  if (!session) throw signInFirst();
  return session;
}

/** 403 unless the account's email is confirmed (or REQUIRE_VERIFIED_EMAIL is off). */
export function assertEmailVerified(
  config: Pick<WebConfig, "REQUIRE_VERIFIED_EMAIL" | "SMTP_URL">,
  account: { emailVerified: boolean },
): void {
  if (config.REQUIRE_VERIFIED_EMAIL && !account.emailVerified) throw emailNotVerified(!config.SMTP_URL);
}

/** The signed-in user of a request whose email is confirmed: 401 without a session, 403 unconfirmed. */
export async function requireVerifiedUser(ctx: WebContext, request: Request): Promise<SessionUser> {
  const user = await requireSessionUser(ctx, request);
  assertEmailVerified(ctx.config, user);
  return user;
}
