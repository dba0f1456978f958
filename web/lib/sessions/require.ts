import type { WebContext } from "../context";
import { signInFirst } from "./errors";
import { type SessionUser, sessionUserOf } from "./service";

/** The signed-in user of a request; 401 without a valid session. */
export async function requireSessionUser(ctx: WebContext, request: Request): Promise<SessionUser> {
  const user = await sessionUserOf(ctx, request);
  if (!user) throw signInFirst();
  return user;
}
