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
